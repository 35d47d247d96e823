// Every BridgeApi action as a call to the admin API (`/api/*`), for the browser dashboard's
// `bridge/http`. The desktop runs the same operations in process (engine/admin/actions.ts), which
// share their logic with the routes, so both answer alike. Depends only on `fetch`.

import type {
  AgentConnection,
  AgentUndo,
  BridgeApi,
  BridgeResult,
  ComboConfig,
  ConnectionTestResult,
  ConnectionView,
  CreatedGatewayKey,
  DetectedProvider,
  GatewayAddressView,
  GatewayKeyView,
  GatewayRunState,
  ImportReport,
  LearnedFixFilter,
  LogQuery,
  ProviderPreset,
  ProviderView,
  ReplayResult,
  RequestLogDetail,
  RequestLogEntry,
  RuleConfig,
  RuleTestResult,
  SessionCacheView,
  SettingView,
  Snapshot,
  UsageQuery,
  UsageReport,
  WebSearchView,
} from './contract';

/** BridgeApi minus the event subscription (that is SSE in the browser, IPC on the desktop). */
export type AdminActions = Omit<BridgeApi, 'onEvents'>;

export interface AdminClientOptions {
  /** Gateway origin, e.g. `http://127.0.0.1:4141`, or '' for the page's own origin. */
  baseUrl: string;
  token(): string | null;
  fetch?: typeof fetch;
  /** Called on 401, so the browser can ask for the token again. */
  onUnauthorized?(): void;
}

interface ApiErrorBody {
  error?: { code?: string; message?: string; field?: string };
}

function enc(value: string): string {
  return encodeURIComponent(value);
}

/** The query string of `GET /api/logs`; the in-process actions parse the same one. */
export function logSearchParams(limit: number, query: LogQuery = {}): URLSearchParams {
  const q = new URLSearchParams({ limit: String(limit) });
  if (query.provider) q.set('provider', query.provider);
  if (query.connection) q.set('connection', query.connection);
  if (query.status !== undefined) q.set('status', String(query.status));
  if (query.errorsOnly) q.set('errors', 'true');
  if (query.beforeId !== undefined) q.set('beforeId', String(query.beforeId));
  return q;
}

/** The query string of `/api/resilience/learned-fixes`. */
export function learnedFixSearchParams(filter: LearnedFixFilter): URLSearchParams {
  const q = new URLSearchParams();
  if (filter.provider !== undefined) q.set('provider', filter.provider);
  if (filter.model !== undefined) q.set('model', filter.model);
  return q;
}

/** The query string of `GET /api/usage`. */
export function usageSearchParams(query: UsageQuery): URLSearchParams {
  const q = new URLSearchParams();
  if (query.since) q.set('since', query.since);
  if (query.by) q.set('by', query.by);
  if (query.step) q.set('step', query.step);
  return q;
}

export function createAdminClient(opts: AdminClientOptions): AdminActions {
  const doFetch = opts.fetch ?? ((input, init) => fetch(input, init));

  async function call<T>(
    method: string,
    path: string,
    body?: unknown,
    map: (raw: unknown) => T = (raw) => raw as T,
  ): Promise<BridgeResult<T>> {
    const token = opts.token();
    if (!token) return { ok: false, error: 'no admin token', code: 'unauthorized' };
    let res: Response;
    try {
      res = await doFetch(`${opts.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        cache: 'no-store',
      });
    } catch (err) {
      return {
        ok: false,
        error: `cannot reach the gateway (${err instanceof Error ? err.message : String(err)})`,
        code: 'unreachable',
      };
    }
    let parsed: unknown = null;
    const text = await res.text();
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = null;
      }
    }
    if (res.ok) return { ok: true, data: map(parsed) };
    if (res.status === 401) opts.onUnauthorized?.();
    const e = (parsed as ApiErrorBody | null)?.error;
    let message = e?.message ?? `HTTP ${res.status}`;
    // An admin route this engine does not have yet (a feature still being built) says so plainly.
    if (res.status === 404 && e?.code === 'not_found' && /no admin endpoint/.test(message)) {
      message = `this gateway does not offer ${method} ${path.split('?')[0]} (${message})`;
    }
    return {
      ok: false,
      error: message,
      ...(e?.field ? { field: e.field } : {}),
      ...(e?.code ? { code: e.code } : {}),
    };
  }

  const asNull = (): null => null;

  return {
    getSnapshot: () => call<Snapshot>('GET', '/api/state'),
    getLogs: (limit, query) =>
      call<RequestLogEntry[]>('GET', `/api/logs?${logSearchParams(limit, query)}`),
    getLogDetail: (id) => call<RequestLogDetail>('GET', `/api/logs/${enc(String(id))}`),
    replayLog: (id, target) =>
      call<ReplayResult>(
        'POST',
        `/api/logs/${enc(String(id))}/replay`,
        target === undefined ? {} : { target },
      ),
    listProviders: () => call<ProviderView[]>('GET', '/api/providers'),
    saveProvider: (input) => call<ProviderView>('POST', '/api/providers', input),
    deleteProvider: (id) => call('DELETE', `/api/providers/${enc(id)}`, undefined, asNull),
    saveConnection: (provider, input) =>
      call<ConnectionView>('POST', `/api/providers/${enc(provider)}/connections`, input),
    deleteConnection: (id) => call('DELETE', `/api/connections/${enc(id)}`, undefined, asNull),
    testConnection: (id) => call<ConnectionTestResult>('POST', `/api/connections/${enc(id)}/test`),
    listCombos: () => call<ComboConfig[]>('GET', '/api/combos'),
    saveCombo: (input) => call<ComboConfig>('POST', '/api/combos', input),
    deleteCombo: (name) => call('DELETE', `/api/combos/${enc(name)}`, undefined, asNull),
    listRules: () => call<{ rules: RuleConfig[] }>('GET', '/api/rules'),
    saveRules: (rules) => call<{ rules: RuleConfig[] }>('PUT', '/api/rules', { rules }),
    testRules: (input) => call<RuleTestResult>('POST', '/api/rules/test', input),
    claudeCodeRules: () => call<{ rules: RuleConfig[] }>('GET', '/api/rules/claude-code'),
    getSettings: () => call<SettingView[]>('GET', '/api/settings'),
    updateSettings: (values) => call<SettingView[]>('PATCH', '/api/settings', values),
    getWebSearch: () => call<{ webSearch: WebSearchView | null }>('GET', '/api/web-search'),
    saveWebSearch: (input) =>
      call<{ webSearch: WebSearchView | null }>('PUT', '/api/web-search', input),
    deleteWebSearch: () => call<{ webSearch: null }>('DELETE', '/api/web-search'),
    resetBreaker: (provider) =>
      call('POST', '/api/resilience/reset', provider === undefined ? {} : { provider }),
    clearConnectionState: (connection) =>
      call('POST', '/api/resilience/connections', { connection }),
    reenableModel: (key) =>
      call('DELETE', '/api/resilience/model-cooldowns', {
        provider: key.provider,
        connection: key.connection,
        model: key.model,
      }),
    clearLearnedFixes: (filter = {}) =>
      call<{ cleared: number }>(
        'DELETE',
        `/api/resilience/learned-fixes?${learnedFixSearchParams(filter)}`,
      ),
    releaseLease: (connection) => call('POST', '/api/leases/release', { connection }),
    pause: () => call<GatewayRunState>('POST', '/api/gateway/pause'),
    resume: () => call<GatewayRunState>('POST', '/api/gateway/resume'),
    setGatewayAddress: (input) => call<GatewayAddressView>('POST', '/api/gateway/address', input),
    getPresets: () => call<{ presets: ProviderPreset[] }>('GET', '/api/presets'),
    detectProviders: () => call<DetectedProvider[]>('GET', '/api/setup/detect'),
    importConfig: (tool, text, dryRun) =>
      call<ImportReport>('POST', '/api/import', { tool, text, dryRun }),
    getUsage: (query) => call<UsageReport>('GET', `/api/usage?${usageSearchParams(query)}`),
    getSessionCache: () =>
      call(
        'GET',
        '/api/usage/cache',
        undefined,
        (b) => (b as { sessions: SessionCacheView[] }).sessions,
      ),
    listKeys: () => call<GatewayKeyView[]>('GET', '/api/keys'),
    createKey: (input) => call<CreatedGatewayKey>('POST', '/api/keys', input),
    updateKey: (id, input) => call<GatewayKeyView>('PATCH', `/api/keys/${enc(id)}`, input),
    revokeKey: (id) => call('DELETE', `/api/keys/${enc(id)}`, undefined, asNull),
    rotateKey: (id) => call<CreatedGatewayKey>('POST', `/api/keys/${enc(id)}/rotate`),
    connectAgent: (agent, input) =>
      call<AgentConnection>('POST', `/api/agents/${enc(agent)}/connect`, input ?? {}),
    undoAgent: (agent) => call<AgentUndo>('POST', `/api/agents/${enc(agent)}/undo`),
  };
}

// ---------------------------------------------------------------------------
// Server-Sent Events
// ---------------------------------------------------------------------------

export interface SseMessage {
  event: string;
  data: string;
}

/**
 * Incremental SSE parser: feed it text as it arrives, get complete messages back. Comments
 * (`: keep-alive`) are skipped; a message without `event:` is `message`.
 */
export function createSseParser(): (chunk: string) => SseMessage[] {
  let buffer = '';
  return (chunk) => {
    buffer += chunk.replace(/\r\n?/g, '\n');
    const out: SseMessage[] = [];
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) out.push({ event, data: data.join('\n') });
      end = buffer.indexOf('\n\n');
    }
    return out;
  };
}
