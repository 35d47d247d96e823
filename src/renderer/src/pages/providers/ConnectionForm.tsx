import { type FormEvent, useRef, useState } from 'react';
import type { ConnectionView, ProviderView } from '../../../../shared/contract';
import {
  type ConnectionDraft,
  connectionDraft,
  connectionPayload,
  type DraftField,
} from '../../components/provider-fields';
import { useDashboard } from '../../state/store';
import { FormFooter } from './form-parts';

/** A labelled number field of the connection form; empty means "not set". */
function CountField({
  label,
  field,
  draft,
  set,
  invalid,
  placeholder,
}: {
  label: string;
  field: DraftField;
  draft: ConnectionDraft;
  set(field: DraftField, value: string): void;
  invalid: DraftField | null;
  placeholder: string;
}) {
  return (
    <label>
      {label}
      <input
        value={draft[field] as string}
        onChange={(e) => set(field, e.target.value)}
        inputMode="numeric"
        placeholder={placeholder}
        aria-invalid={invalid === field ? true : undefined}
        data-field={field}
      />
    </label>
  );
}

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
  const count = { draft, set, invalid };
  return (
    <form
      ref={formRef}
      className="form"
      onSubmit={submit}
      aria-label={
        initial ? `Edit connection ${initial.id}` : `Add or update a connection of ${provider.id}`
      }
    >
      <div className="form-grid">
        <label>
          Connection id
          <input
            value={draft.id}
            onChange={(e) => set('id', e.target.value)}
            required
            readOnly={initial !== null}
            placeholder={`${provider.id}-1`}
          />
        </label>
        <label>
          Secret from
          <select value={draft.secretKind} onChange={(e) => set('secretKind', e.target.value)}>
            <option value="env">Environment variable</option>
            <option value="key">Stored key</option>
          </select>
        </label>
        <label className="wide">
          {draft.secretKind === 'env' ? 'Variable name' : 'API key (stored, never shown again)'}
          <input
            value={draft.secret}
            onChange={(e) => set('secret', e.target.value)}
            type={draft.secretKind === 'key' ? 'password' : 'text'}
            autoComplete="off"
            placeholder={
              draft.secretKind === 'env'
                ? 'OPENAI_API_KEY'
                : initial
                  ? 'leave empty to keep the current secret'
                  : 'leave empty to keep the stored one'
            }
          />
        </label>
        <CountField
          label="Max concurrent"
          field="maxConcurrent"
          placeholder="unlimited"
          {...count}
        />
        <CountField
          label="Queue concurrency"
          field="concurrency"
          placeholder="unlimited"
          {...count}
        />
        <CountField
          label="Requests per minute"
          field="requestsPerMinute"
          placeholder="learned from headers"
          {...count}
        />
        <label className="check">
          <input
            type="checkbox"
            checked={draft.disableCooling}
            onChange={(e) => set('disableCooling', e.target.checked)}
          />
          Never cool down (lock the model instead)
        </label>
      </div>
      {anthropic && (
        <fieldset className="form-grid form-group">
          <legend>Anthropic subscription</legend>
          <label className="check">
            <input
              type="checkbox"
              checked={draft.lowPriorityMode}
              onChange={(e) => set('lowPriorityMode', e.target.checked)}
            />
            Low-priority lane at the usage limit
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={draft.autoLimitReset}
              onChange={(e) => set('autoLimitReset', e.target.checked)}
            />
            Automatic limit reset
          </label>
          <label className="wide">
            Organization UUID{draft.autoLimitReset ? ' (required)' : ''}
            <input
              value={draft.organizationUUID}
              onChange={(e) => set('organizationUUID', e.target.value)}
              required={draft.autoLimitReset}
              spellCheck={false}
              autoComplete="off"
              placeholder="3f2b8c1e-0a4d-4e5f-9a7b-1c2d3e4f5a6b"
              aria-invalid={invalid === 'organizationUUID' ? true : undefined}
              data-field="organizationUUID"
            />
          </label>
        </fieldset>
      )}
      <details className="form-advanced" open={hasOverrides}>
        <summary>Advanced: queue limits for this connection</summary>
        <div className="form-grid">
          <CountField label="Max wait (ms)" field="maxWaitMs" placeholder="setting" {...count} />
          <CountField
            label="Execution max wait (ms)"
            field="executionMaxWaitMs"
            placeholder="setting"
            {...count}
          />
          <CountField
            label="Max queue depth"
            field="maxQueueDepth"
            placeholder="setting"
            {...count}
          />
        </div>
      </details>
      <FormFooter error={error} submit="Save connection" onCancel={onDone} />
    </form>
  );
}
