import { type FormEvent, useRef, useState } from 'react';
import type { ConnectionView, ProviderView } from '../../../../shared/contract';
import {
  connectionDraft,
  connectionPayload,
  type DraftField,
} from '../../components/provider-fields';
import { useDashboard } from '../../state/store';
import { AnthropicSubscription } from './AnthropicSubscription';
import { ConnectionBasics } from './ConnectionBasics';
import { FormFooter } from './form-parts';
import { QueueLimits } from './QueueLimits';

export function ConnectionForm({
  provider,
  initial,
  onDone,
}: {
  provider: ProviderView;
  /** The connection being edited; null adds one (or updates the one whose id is typed). */
  initial: ConnectionView | null;
  onDone(): void;
}) {
  const bridge = useDashboard((s) => s.bridge);
  const notify = useDashboard((s) => s.notify);
  const [draft, setDraft] = useState(() => connectionDraft(initial));
  const [error, setError] = useState<string | null>(null);
  const [invalid, setInvalid] = useState<DraftField | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const anthropic = provider.format === 'anthropic';
  const o = initial?.rateLimitOverrides;
  const hasOverrides = !!o && Object.keys(o).length > 0;
  const set = (field: DraftField, value: string | boolean) =>
    setDraft((d) => ({ ...d, [field]: value }));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!bridge) return;
    const payload = connectionPayload(draft, initial, provider.format);
    if (!payload.ok) {
      setError(payload.error);
      setInvalid(payload.field ?? null);
      const input = formRef.current?.querySelector<HTMLInputElement>(
        `[data-field="${payload.field}"]`,
      );
      // Open the "Advanced" section if the field is in it, then focus the field.
      input?.closest('details')?.setAttribute('open', '');
      input?.focus();
      return;
    }
    setInvalid(null);
    const result = await bridge.saveConnection(provider.id, payload.value);
    if (!result.ok) {
      setError(result.error);
      return;
    }
    notify('ok', `Connection ${result.data.id} saved`);
    onDone();
  };
  const fields = { draft, set, invalid };
  return (
    <form
      ref={formRef}
      className="form"
      onSubmit={submit}
      aria-label={
        initial ? `Edit connection ${initial.id}` : `Add or update a connection of ${provider.id}`
      }
    >
      <ConnectionBasics providerId={provider.id} editing={initial !== null} {...fields} />
      {anthropic && <AnthropicSubscription {...fields} />}
      <QueueLimits open={hasOverrides} {...fields} />
      <FormFooter error={error} submit="Save connection" onCancel={onDone} />
    </form>
  );
}
