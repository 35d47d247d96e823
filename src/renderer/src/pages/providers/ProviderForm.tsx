import { type FormEvent, useId, useRef, useState } from 'react';
import type { AuthClass, ProviderFormat } from '../../../../shared/contract';
import { FORMAT_HINTS, parseQuotaFamilies } from '../../components/provider-fields';
import { useDashboard } from '../../state/store';
import { FieldError, FormFooter } from './form-parts';
import { type ProviderDraft, providerPayload } from './provider-model';

export function ProviderForm({ initial, onDone }: { initial: ProviderDraft; onDone(): void }) {
  const bridge = useDashboard((s) => s.bridge);
  const notify = useDashboard((s) => s.notify);
  const [draft, setDraft] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  // The quota families error shows once the field is left or the form is sent, then live.
  const [checkFamilies, setCheckFamilies] = useState(false);
  const familiesRef = useRef<HTMLTextAreaElement>(null);
  const uid = useId();
  const editing = initial.id !== '';
  const families = parseQuotaFamilies(draft.quotaFamilies);
  const familiesError = checkFamilies && !families.ok ? families.error : null;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!bridge) return;
    if (!families.ok) {
      setCheckFamilies(true);
      familiesRef.current?.focus();
      return;
    }
    const result = await bridge.saveProvider(providerPayload(draft, families.value));
    if (!result.ok) {
      setError(result.error);
      return;
    }
    notify('ok', `Provider ${result.data.id} saved`);
    onDone();
  };
  const set = <K extends keyof ProviderDraft>(key: K, value: ProviderDraft[K]) =>
    setDraft((d) => ({ ...d, [key]: value }));
  const format = FORMAT_HINTS[draft.format];
  return (
    <form
      className="form"
      onSubmit={submit}
      aria-label={editing ? 'Edit provider' : 'Add provider'}
    >
      <div className="form-grid">
        <label>
          Id
          <input
            value={draft.id}
            onChange={(e) => set('id', e.target.value)}
            required
            readOnly={editing}
            placeholder="openai"
          />
        </label>
        <label>
          Format
          <select
            value={draft.format}
            onChange={(e) => set('format', e.target.value as ProviderFormat)}
            aria-describedby={`${uid}-format`}
          >
            {(Object.keys(FORMAT_HINTS) as ProviderFormat[]).map((f) => (
              <option key={f} value={f}>
                {FORMAT_HINTS[f].label}
              </option>
            ))}
          </select>
          <span id={`${uid}-format`} className="field-hint">
            {format.hint}
          </span>
        </label>
        <label className="wide">
          Base URL
          <input
            value={draft.baseUrl}
            onChange={(e) => set('baseUrl', e.target.value)}
            required
            placeholder={format.url}
          />
        </label>
        <label>
          Auth class
          <select
            value={draft.authClass}
            onChange={(e) => set('authClass', e.target.value as AuthClass)}
          >
            <option value="api_key">API key</option>
            <option value="oauth">OAuth / subscription</option>
            <option value="local">Local</option>
          </select>
        </label>
        <label className="wide">
          Models (comma or space separated)
          <input
            value={draft.models}
            onChange={(e) => set('models', e.target.value)}
            placeholder="gpt-5, gpt-5-mini"
            aria-describedby={draft.modelSpecs.length > 0 ? `${uid}-specs` : undefined}
          />
          {draft.modelSpecs.length > 0 && (
            <span id={`${uid}-specs`} className="field-hint">
              Configured context window or price, kept while the id stays listed:{' '}
              {draft.modelSpecs.map((m) => m.id).join(', ')}
            </span>
          )}
        </label>
        <div className="wide">
          <label>
            Quota families (one per line: family: pattern, pattern; * matches anything)
            <textarea
              ref={familiesRef}
              rows={3}
              value={draft.quotaFamilies}
              onChange={(e) => set('quotaFamilies', e.target.value)}
              onBlur={() => setCheckFamilies(true)}
              aria-invalid={familiesError ? true : undefined}
              aria-describedby={`${uid}-families`}
              spellCheck={false}
              placeholder={'gpt5: gpt-5*\no-series: o3, o4-mini'}
            />
          </label>
          <FieldError id={`${uid}-families`} text={familiesError} />
        </div>
      </div>
      <FormFooter
        error={error}
        submit={editing ? 'Save provider' : 'Add provider'}
        onCancel={onDone}
      />
    </form>
  );
}
