import { type FormEvent, useCallback, useEffect, useState } from 'react';
import type {
  AuthClass,
  BridgeResult,
  ComboConfig,
  ConnectionTestResult,
  ProviderFormat,
  ProviderView,
} from '../../../shared/contract';
import { ActionButton, Badge, Card, Countdown, Empty } from '../components/ui';
import { useDashboard } from '../state/store';
import { connectionBadge } from './Resilience';

interface ProviderDraft {
  id: string;
  format: ProviderFormat;
  baseUrl: string;
  authClass: AuthClass;
  models: string;
}

const EMPTY_PROVIDER: ProviderDraft = {
  id: '',
  format: 'openai',
  baseUrl: '',
  authClass: 'api_key',
  models: '',
};

function FieldError({ text }: { text: string | null }) {
  return (
    <p className="field-error" role={text ? 'alert' : undefined}>
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
  const editing = initial.id !== '';
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!bridge) return;
    const result = await bridge.saveProvider({
      id: draft.id.trim(),
      format: draft.format,
      baseUrl: draft.baseUrl.trim(),
      authClass: draft.authClass,
      models: draft.models
        .split(/[\s,]+/)
        .map((m) => m.trim())
        .filter(Boolean),
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
          >
            <option value="openai">OpenAI</option>
            <option value="anthropic">Anthropic</option>
          </select>
        </label>
        <label className="wide">
          Base URL
          <input
            value={draft.baseUrl}
            onChange={(e) => set('baseUrl', e.target.value)}
            required
            placeholder="https://api.openai.com/v1"
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
      </div>
      <FormFooter
        error={error}
        submit={editing ? 'Save provider' : 'Add provider'}
        onCancel={onDone}
      />
    </form>
  );
}

function ConnectionForm({ provider, onDone }: { provider: string; onDone(): void }) {
  const bridge = useDashboard((s) => s.bridge);
  const notify = useDashboard((s) => s.notify);
  const [id, setId] = useState('');
  const [secretKind, setSecretKind] = useState<'env' | 'key'>('env');
  const [secret, setSecret] = useState('');
  const [maxConcurrent, setMaxConcurrent] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!bridge) return;
    const result = await bridge.saveConnection(provider, {
      id: id.trim(),
      ...(secret.trim()
        ? secretKind === 'env'
          ? { apiKeyEnv: secret.trim() }
          : { apiKey: secret.trim() }
        : {}),
      ...(maxConcurrent.trim() ? { maxConcurrent: Number(maxConcurrent) } : {}),
    });
    if (!result.ok) {
      setError(result.error);
      return;
    }
    notify('ok', `Connection ${result.data.id} saved`);
    onDone();
  };
  return (
    <form
      className="form"
      onSubmit={submit}
      aria-label={`Add or update a connection of ${provider}`}
    >
      <div className="form-grid">
        <label>
          Connection id
          <input
            value={id}
            onChange={(e) => setId(e.target.value)}
            required
            placeholder={`${provider}-1`}
          />
        </label>
        <label>
          Secret from
          <select
            value={secretKind}
            onChange={(e) => setSecretKind(e.target.value as 'env' | 'key')}
          >
            <option value="env">Environment variable</option>
            <option value="key">Stored key</option>
          </select>
        </label>
        <label className="wide">
          {secretKind === 'env' ? 'Variable name' : 'API key (stored, never shown again)'}
          <input
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
            type={secretKind === 'key' ? 'password' : 'text'}
            autoComplete="off"
            placeholder={
              secretKind === 'env' ? 'OPENAI_API_KEY' : 'leave empty to keep the stored one'
            }
          />
        </label>
        <label>
          Max concurrent
          <input
            value={maxConcurrent}
            onChange={(e) => setMaxConcurrent(e.target.value)}
            inputMode="numeric"
            placeholder="unlimited"
          />
        </label>
      </div>
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
  const [mode, setMode] = useState<'view' | 'edit' | 'connection'>('view');
  const breaker = snapshot?.breakers.find((b) => b.provider === p.id);
  const closeForm = () => {
    setMode('view');
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
                </td>
                <td className="error-cell small" title={state?.lastError ?? ''}>
                  {state?.lastError ?? ''}
                </td>
                <td>
                  <ConnectionTest id={c.id} />
                </td>
                <td>
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
      {mode === 'edit' && (
        <ProviderForm
          initial={{
            id: p.id,
            format: p.format,
            baseUrl: p.baseUrl,
            authClass: p.authClass,
            models: p.models.join(', '),
          }}
          onDone={closeForm}
        />
      )}
      {mode === 'connection' && <ConnectionForm provider={p.id} onDone={closeForm} />}
      {mode === 'view' && bridge && (
        <div className="form-actions">
          <button type="button" className="btn" onClick={() => setMode('connection')}>
            Add connection
          </button>
          <button type="button" className="btn" onClick={() => setMode('edit')}>
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
