import { type FormEvent, useCallback, useEffect, useId, useRef, useState } from 'react';
import type {
  AuthClass,
  BridgeResult,
  ComboConfig,
  ConnectionTestResult,
  ConnectionView,
  ProviderFormat,
  ProviderView,
} from '../../../shared/contract';
import {
  type ConnectionDraft,
  connectionDraft,
  connectionPayload,
  type DraftField,
  FORMAT_HINTS,
  formatQuotaFamilies,
  parseQuotaFamilies,
} from '../components/provider-fields';
import { ActionButton, Badge, Card, Countdown, Empty } from '../components/ui';
import { useDashboard } from '../state/store';
import { connectionBadge } from './Resilience';

interface ProviderDraft {
  id: string;
  format: ProviderFormat;
  baseUrl: string;
  authClass: AuthClass;
  models: string;
  /** `family: pattern, pattern` per line. */
  quotaFamilies: string;
  /** Whether the provider had quota families, so clearing the text sends `{}`. */
  hadFamilies: boolean;
}

const EMPTY_PROVIDER: ProviderDraft = {
  id: '',
  format: 'openai',
  baseUrl: '',
  authClass: 'api_key',
  models: '',
  quotaFamilies: '',
  hadFamilies: false,
};

function providerDraft(p: ProviderView): ProviderDraft {
  return {
    id: p.id,
    format: p.format,
    baseUrl: p.baseUrl,
    authClass: p.authClass,
    models: p.models.join(', '),
    quotaFamilies: formatQuotaFamilies(p.quotaFamilies),
    hadFamilies: Object.keys(p.quotaFamilies).length > 0,
  };
}

function FieldError({ text, id }: { text: string | null; id?: string }) {
  return (
    <p className="field-error" id={id} role={text ? 'alert' : undefined}>
      {text ?? '\u00a0'}
    </p>
  );
}

/** A form's error line and its buttons: submit (primary unless `plain`), and Cancel if wanted. */
function FormFooter({
  error,
  submit,
  plain = false,
  onCancel,
}: {
  error: string | null;
  submit: string;
  plain?: boolean;
  onCancel?: () => void;
}) {
  return (
    <>
      <FieldError text={error} />
      <div className="form-actions">
        <button type="submit" className={plain ? 'btn' : 'btn btn-primary'}>
          {submit}
        </button>
        {onCancel && (
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </>
  );
}

/** Deletes something after confirmation, then reloads the page's lists. */
function DeleteButton({
  remove,
  reload,
  done,
  confirm,
}: {
  remove: () => Promise<BridgeResult<unknown>>;
  reload(): void;
  done: string;
  confirm: string;
}) {
  return (
    <ActionButton
      run={async () => {
        const r = await remove();
        reload();
        return r;
      }}
      done={done}
      tone="danger"
      confirm={confirm}
    >
      Delete
    </ActionButton>
  );
}

function ProviderForm({ initial, onDone }: { initial: ProviderDraft; onDone(): void }) {
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
    const quotaFamilies =
      Object.keys(families.value).length > 0 || initial.hadFamilies ? families.value : undefined;
    const result = await bridge.saveProvider({
      id: draft.id.trim(),
      format: draft.format,
      baseUrl: draft.baseUrl.trim(),
      authClass: draft.authClass,
      models: draft.models
        .split(/[\s,]+/)
        .map((m) => m.trim())
        .filter(Boolean),
      ...(quotaFamilies ? { quotaFamilies } : {}),
    });
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
          />
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

function ConnectionForm({
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

type TestState =
  | { phase: 'idle' }
  | { phase: 'running' }
  | { phase: 'done'; result: ConnectionTestResult }
  | { phase: 'failed'; error: string };

function testText(state: TestState): { tone: 'ok' | 'bad' | 'idle'; text: string } {
  switch (state.phase) {
    case 'idle':
      return { tone: 'idle', text: '' };
    case 'running':
      return { tone: 'idle', text: 'Testing…' };
    case 'failed':
      return { tone: 'bad', text: state.error };
    case 'done':
      return state.result.ok
        ? { tone: 'ok', text: `OK · ${state.result.latencyMs} ms` }
        : { tone: 'bad', text: state.result.message };
  }
}

/**
 * "Test a connection": one authenticated call to the provider with this connection's key. The
 * result sits in a fixed-width slot next to the button, so nothing moves when it arrives; a
 * live region announces it.
 */
function ConnectionTest({ id }: { id: string }) {
  const bridge = useDashboard((s) => s.bridge);
  const [state, setState] = useState<TestState>({ phase: 'idle' });
  if (!bridge) return null;
  const running = state.phase === 'running';
  const run = async () => {
    setState({ phase: 'running' });
    const r = await bridge.testConnection(id);
    setState(r.ok ? { phase: 'done', result: r.data } : { phase: 'failed', error: r.error });
  };
  const { tone, text } = testText(state);
  const detail =
    state.phase === 'done' && state.result.ok ? state.result.message : text || undefined;
  return (
    <span className="conn-test">
      <button
        type="button"
        className="btn"
        onClick={run}
        disabled={running}
        aria-busy={running}
        aria-label={`Test connection ${id}`}
        aria-describedby={`conn-test-${id}`}
      >
        Test
      </button>
      <span
        id={`conn-test-${id}`}
        className={`conn-test-result small text-${tone}`}
        role="status"
        aria-live="polite"
        title={detail}
        data-testid={`conn-test-${id}`}
      >
        {text || '\u00a0'}
      </span>
    </span>
  );
}

function ProviderCard({ p, reload }: { p: ProviderView; reload(): void }) {
  const bridge = useDashboard((s) => s.bridge);
  const snapshot = useDashboard((s) => s.snapshot);
  // `connection`: the connection form, editing that connection, or adding one when null.
  const [mode, setMode] = useState<
    { kind: 'view' } | { kind: 'edit' } | { kind: 'connection'; conn: ConnectionView | null }
  >({ kind: 'view' });
  const breaker = snapshot?.breakers.find((b) => b.provider === p.id);
  const closeForm = () => {
    setMode({ kind: 'view' });
    reload();
  };
  return (
    <Card
      testId={`provider-${p.id}`}
      title={
        <>
          {p.id}{' '}
          <span className="muted small">
            {p.format} · {p.authClass.replace('_', ' ')}
          </span>
        </>
      }
      aside={
        <>
          {!p.enabled && <Badge tone="idle">disabled</Badge>}
          {breaker && breaker.state !== 'CLOSED' && (
            <Badge tone={breaker.state === 'OPEN' ? 'bad' : 'warn'}>
              circuit {breaker.state.replace('_', '-')}
            </Badge>
          )}
        </>
      }
    >
      <p className="muted small">
        <code>{p.baseUrl}</code> · {p.models.length > 0 ? p.models.join(', ') : 'no models listed'}
        {Object.keys(p.quotaFamilies).length > 0 &&
          ` · quota families: ${Object.keys(p.quotaFamilies).join(', ')}`}
      </p>
      <table className="table compact">
        <tbody>
          {p.connections.length === 0 && (
            <tr>
              <td className="muted">No connections: add one to use this provider.</td>
            </tr>
          )}
          {p.connections.map((c) => {
            const state = snapshot?.connections.find((s) => s.id === c.id);
            const badge = state && snapshot ? connectionBadge(state, snapshot.at) : null;
            return (
              <tr key={c.id} data-testid={`connection-${c.id}`}>
                <td>{c.id}</td>
                <td>{badge && <Badge tone={badge.tone}>{badge.text}</Badge>}</td>
                <td className="num">
                  {state?.rateLimitedUntil && snapshot && state.rateLimitedUntil > snapshot.at ? (
                    <Countdown until={state.rateLimitedUntil} />
                  ) : null}
                </td>
                <td className="muted small">
                  {c.apiKeyEnv ? `$${c.apiKeyEnv}` : 'stored key'}
                  {!c.hasSecret && <span className="text-bad"> · no secret</span>}
                </td>
                <td className="num small">
                  {state ? `backoff ${state.backoffLevel}` : ''}
                  {c.maxConcurrent ? ` · max ${c.maxConcurrent}` : ''}
                  {c.rateLimit?.concurrency ? ` · queue ${c.rateLimit.concurrency}` : ''}
                  {c.rateLimit?.requestsPerMinute ? ` · ${c.rateLimit.requestsPerMinute}/min` : ''}
                  {c.disableCooling ? ' · no cooling' : ''}
                </td>
                <td className="error-cell small" title={state?.lastError ?? ''}>
                  {state?.lastError ?? ''}
                </td>
                <td>
                  <ConnectionTest id={c.id} />
                </td>
                <td className="row-actions">
                  {bridge && (
                    <button
                      type="button"
                      className="btn"
                      aria-label={`Edit connection ${c.id}`}
                      aria-expanded={mode.kind === 'connection' && mode.conn?.id === c.id}
                      onClick={() => setMode({ kind: 'connection', conn: c })}
                    >
                      Edit
                    </button>
                  )}{' '}
                  {bridge && (
                    <DeleteButton
                      remove={() => bridge.deleteConnection(c.id)}
                      reload={reload}
                      done={`Connection ${c.id} deleted`}
                      confirm={`Delete connection ${c.id}?`}
                    />
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {mode.kind === 'edit' && <ProviderForm initial={providerDraft(p)} onDone={closeForm} />}
      {mode.kind === 'connection' && (
        <ConnectionForm
          key={mode.conn?.id ?? ''}
          provider={p}
          initial={mode.conn}
          onDone={closeForm}
        />
      )}
      {mode.kind === 'view' && bridge && (
        <div className="form-actions">
          <button
            type="button"
            className="btn"
            onClick={() => setMode({ kind: 'connection', conn: null })}
          >
            Add connection
          </button>
          <button type="button" className="btn" onClick={() => setMode({ kind: 'edit' })}>
            Edit
          </button>
          <DeleteButton
            remove={() => bridge.deleteProvider(p.id)}
            reload={reload}
            done={`Provider ${p.id} deleted`}
            confirm={`Delete provider ${p.id} and its connections?`}
          />
        </div>
      )}
    </Card>
  );
}

function Combos({ combos, reload }: { combos: ComboConfig[]; reload(): void }) {
  const bridge = useDashboard((s) => s.bridge);
  const notify = useDashboard((s) => s.notify);
  const [name, setName] = useState('');
  const [targets, setTargets] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!bridge) return;
    const r = await bridge.saveCombo({
      name: name.trim(),
      strategy: 'priority',
      targets: targets.split(/[\s,]+/).filter(Boolean),
    });
    if (!r.ok) return setError(r.error);
    setError(null);
    setName('');
    setTargets('');
    notify('ok', `Combo ${r.data.name} saved`);
    reload();
  };
  return (
    <Card title="Combos">
      {combos.length === 0 ? (
        <Empty>No combos: a combo is a model name that fails over across targets.</Empty>
      ) : (
        <ul className="plain">
          {combos.map((c) => (
            <li key={c.name} className="row">
              <span>
                <strong>{c.name}</strong> <span className="muted small">{c.strategy}</span>
              </span>
              <span className="small">{c.targets.join(' → ')}</span>
              {bridge && (
                <DeleteButton
                  remove={() => bridge.deleteCombo(c.name)}
                  reload={reload}
                  done={`Combo ${c.name} deleted`}
                  confirm={`Delete combo ${c.name}?`}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      <form className="form" onSubmit={submit} aria-label="Add combo">
        <div className="form-grid">
          <label>
            Name
            <input
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              placeholder="coder"
            />
          </label>
          <label className="wide">
            Targets in priority order (provider/model)
            <input
              value={targets}
              onChange={(e) => setTargets(e.target.value)}
              required
              placeholder="anthropic/claude-sonnet-4-5, openai/gpt-5"
            />
          </label>
        </div>
        <FormFooter error={error} submit="Save combo" plain />
      </form>
    </Card>
  );
}

export function Providers() {
  const bridge = useDashboard((s) => s.bridge);
  const [providers, setProviders] = useState<ProviderView[] | null>(null);
  const [combos, setCombos] = useState<ComboConfig[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const reload = useCallback(() => {
    if (!bridge) return;
    void bridge.listProviders().then((r) => {
      if (r.ok) {
        setProviders(r.data);
        setError(null);
      } else setError(r.error);
    });
    void bridge.listCombos().then((r) => r.ok && setCombos(r.data));
  }, [bridge]);
  useEffect(reload, [reload]);
  // Config edits elsewhere (another tab, the API) show up here too.
  const activity = useDashboard((s) => s.activity[0]);
  useEffect(() => {
    if (activity?.text.endsWith('changed')) reload();
  }, [activity, reload]);
  return (
    <>
      <div className="section-head">
        <h2>Providers and connections</h2>
        {!adding && (
          <button type="button" className="btn btn-primary" onClick={() => setAdding(true)}>
            Add provider
          </button>
        )}
      </div>
      {error && <p className="text-bad">Could not load providers: {error}</p>}
      {adding && (
        <Card title="New provider">
          <ProviderForm
            initial={EMPTY_PROVIDER}
            onDone={() => {
              setAdding(false);
              reload();
            }}
          />
        </Card>
      )}
      {providers === null ? (
        <Empty>Loading…</Empty>
      ) : providers.length === 0 ? (
        <Empty>No providers yet. Add one, or start with --config FILE.</Empty>
      ) : (
        providers.map((p) => <ProviderCard key={p.id} p={p} reload={reload} />)
      )}
      <Combos combos={combos} reload={reload} />
    </>
  );
}
