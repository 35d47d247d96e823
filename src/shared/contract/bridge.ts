import type { AgentConnectInput, AgentConnection, AgentId, AgentUndo } from './agents';
import type { ReplayResult, RequestLogDetail } from './captures';
import type {
  AuthClass,
  ComboConfig,
  ConnectionConfig,
  ConnectionView,
  ModelSpec,
  ProviderConfig,
  ProviderFormat,
  ProviderView,
  RuleConfig,
  RuleTestInput,
  RuleTestResult,
  SettingView,
  WebSearchConfig,
  WebSearchView,
} from './config';
import type { EngineEvent } from './events';
import type { RequestLogEntry, Snapshot } from './state';
import type {
  CreatedGatewayKey,
  GatewayKeyInput,
  GatewayKeyView,
  SessionCacheView,
  UsageQuery,
  UsageReport,
} from './usage';

// ---------------------------------------------------------------------------
// Bridge: what the renderer may call, over IPC (desktop) or HTTP (browser)
// ---------------------------------------------------------------------------

export type BridgeResult<T> =
  | { ok: true; data: T }
  | {
      ok: false;
      error: string;
      /** The input to blame (a setting key, `provider.baseUrl`, …) when the API names one. */
      field?: string;
      /** Machine-readable code from the admin API (`invalid_field`, `not_found`, …). */
      code?: string;
    };

/** Filters of the request log (all optional; combined with AND). */
export interface LogQuery {
  provider?: string;
  connection?: string;
  status?: number;
  errorsOnly?: boolean;
  /** Only rows older than this id (paging). */
  beforeId?: number;
}

/** Which model to re-enable: one lockout entry (`DELETE /api/resilience/model-cooldowns`). */
export interface LockoutKey {
  provider: string;
  connection: string;
  model: string;
}

/** Which learnt request-shape fixes to clear: all, one provider's, or one model's. */
export interface LearnedFixFilter {
  provider?: string;
  /** Needs `provider` as well. */
  model?: string;
}

/** Whether the proxy forwards requests (`POST /api/gateway/pause` / `resume`). */
export interface GatewayRunState {
  paused: boolean;
}

/** Where the gateway should listen (`POST /api/gateway/address`); an omitted field is kept. */
export interface GatewayAddress {
  host?: string;
  port: number;
}

/** Where the gateway listens now. */
export interface GatewayAddressView {
  host: string;
  port: number;
  baseUrl: string;
}

/**
 * Outcome of testing one connection (`POST /api/connections/{id}/test`): one authenticated
 * models-list call with its credential. A diagnostic only: it never touches breakers or cooldowns.
 */
export interface ConnectionTestResult {
  /** True when the provider answered 2xx. */
  ok: boolean;
  /** The provider's HTTP status; null when no call was made or it never answered. */
  status: number | null;
  latencyMs: number;
  /** What happened, safe to show (the secret is never included). */
  message: string;
  /** The model ids a 2xx models list named (`{ data: [{ id }] }`), for picking instead of typing. */
  models?: string[];
}

// ---------------------------------------------------------------------------
// First run: presets, detection, imports (`/api/presets`, `/api/setup/detect`, `/api/import`)
// ---------------------------------------------------------------------------

/** A provider Breakwater knows how to reach: what the setup wizard and `breakwater init` offer. */
export interface ProviderPreset {
  id: string;
  name: string;
  format: ProviderFormat;
  baseUrl: string;
  authClass: AuthClass;
  /** The environment variable its key usually lives in. */
  keyEnv?: string;
  /** Well-known models, with context window and price where the model table has them. */
  models: ModelSpec[];
  /** A value the user must fill in themselves (a resource name, a region), when there is one. */
  note?: string;
}

/** A preset found ready to use: its key variable is set, or its local server answers. */
export interface DetectedProvider {
  preset: string;
  source: 'env' | 'local';
  /** The variable holding the key (never its value). */
  keyEnv?: string;
  baseUrl: string;
  /** The server's own model list (local servers), else the preset's. */
  models: string[];
}

export type ImportTool = 'omniroute' | 'claude-code-router' | 'litellm' | 'cc-switch';

/** What an import did, or would do with `dryRun`: never a secret, only names and reasons. */
export interface ImportReport {
  tool: ImportTool;
  dryRun: boolean;
  providers: string[];
  connections: string[];
  combos: string[];
  /** One line per thing imported, e.g. `connection openrouter-1 (key stored from the file)`. */
  imported: string[];
  skipped: { item: string; reason: string }[];
}

export interface ProviderInput extends Omit<ProviderConfig, 'connections'> {
  connections?: ConnectionConfig[];
}

export interface BridgeApi {
  getSnapshot(): Promise<BridgeResult<Snapshot>>;
  /** Returns its own unsubscribe. */
  onEvents(listener: (events: EngineEvent[]) => void): () => void;
  /** Request log rows, newest first; `query` filters them. */
  getLogs(limit: number, query?: LogQuery): Promise<BridgeResult<RequestLogEntry[]>>;
  /** One row with what was captured of its call (`GET /api/logs/{id}`). */
  getLogDetail(id: number): Promise<BridgeResult<RequestLogDetail>>;
  /** Sends a captured request again, on `target` when given (`POST /api/logs/{id}/replay`). */
  replayLog(id: number, target?: string): Promise<BridgeResult<ReplayResult>>;
  listProviders(): Promise<BridgeResult<ProviderView[]>>;
  saveProvider(input: ProviderInput): Promise<BridgeResult<ProviderView>>;
  deleteProvider(id: string): Promise<BridgeResult<null>>;
  saveConnection(provider: string, input: ConnectionConfig): Promise<BridgeResult<ConnectionView>>;
  deleteConnection(id: string): Promise<BridgeResult<null>>;
  /** One cheap authenticated call with the connection's credential (a diagnostic). */
  testConnection(id: string): Promise<BridgeResult<ConnectionTestResult>>;
  listCombos(): Promise<BridgeResult<ComboConfig[]>>;
  saveCombo(input: ComboConfig): Promise<BridgeResult<ComboConfig>>;
  deleteCombo(name: string): Promise<BridgeResult<null>>;
  /** The routing rules in order (`GET /api/rules`). */
  listRules(): Promise<BridgeResult<{ rules: RuleConfig[] }>>;
  /** Replaces every rule at once (`PUT /api/rules`); a `use` naming nothing is refused. */
  saveRules(rules: RuleConfig[]): Promise<BridgeResult<{ rules: RuleConfig[] }>>;
  /** Which rule a request would take and why the earlier ones did not (`POST /api/rules/test`). */
  testRules(input: RuleTestInput): Promise<BridgeResult<RuleTestResult>>;
  /**
   * The rule set offered for Claude Code on the stored providers (`GET /api/rules/claude-code`):
   * background to the cheapest target, long context to the largest window. Writes nothing.
   */
  claudeCodeRules(): Promise<BridgeResult<{ rules: RuleConfig[] }>>;
  getSettings(): Promise<BridgeResult<SettingView[]>>;
  updateSettings(values: Record<string, unknown>): Promise<BridgeResult<SettingView[]>>;
  /** The web search backend, without its key (`GET /api/web-search`); null when none is set. */
  getWebSearch(): Promise<BridgeResult<{ webSearch: WebSearchView | null }>>;
  /** Saves it (`PUT /api/web-search`); no `apiKey` keeps the stored one for the same backend. */
  saveWebSearch(input: WebSearchConfig): Promise<BridgeResult<{ webSearch: WebSearchView | null }>>;
  /** Removes it (`DELETE /api/web-search`): searches then tell the model none is configured. */
  deleteWebSearch(): Promise<BridgeResult<{ webSearch: null }>>;
  /** Resets one provider's circuit breaker, or every breaker when `provider` is omitted. */
  resetBreaker(provider?: string): Promise<BridgeResult<unknown>>;
  /** Clears a connection's cooldown or terminal state (banned, expired, credits exhausted). */
  clearConnectionState(connection: string): Promise<BridgeResult<unknown>>;
  /** Re-enables a model locked out on one connection. */
  reenableModel(key: LockoutKey): Promise<BridgeResult<unknown>>;
  /** Forgets learnt request-shape fixes (`DELETE /api/resilience/learned-fixes`); how many went. */
  clearLearnedFixes(filter?: LearnedFixFilter): Promise<BridgeResult<{ cleared: number }>>;
  /** Ends the active exclusive lease on a connection (operator release). */
  releaseLease(connection: string): Promise<BridgeResult<unknown>>;
  /** Stops forwarding proxy requests (clients get 503) until `resume`. */
  pause(): Promise<BridgeResult<GatewayRunState>>;
  resume(): Promise<BridgeResult<GatewayRunState>>;
  /**
   * Moves the gateway to another host and port while it serves (the new listener is up before
   * the old one stops), and keeps it for the next start.
   */
  setGatewayAddress(input: GatewayAddress): Promise<BridgeResult<GatewayAddressView>>;
  /** The provider catalog (`GET /api/presets`). */
  getPresets(): Promise<BridgeResult<{ presets: ProviderPreset[] }>>;
  /** Presets whose key variable is set or whose local server answers; adds nothing. */
  detectProviders(): Promise<BridgeResult<DetectedProvider[]>>;
  /** Imports another gateway's config (file text); with `dryRun` only reports. */
  importConfig(
    tool: ImportTool,
    text: string,
    dryRun: boolean,
  ): Promise<BridgeResult<ImportReport>>;
  /** Token and cost totals, grouped, with a time series when the query has a step. */
  getUsage(query: UsageQuery): Promise<BridgeResult<UsageReport>>;
  /** Recent sessions' prompt-cache reads turn by turn, with the turns that lost the cache. */
  getSessionCache(): Promise<BridgeResult<SessionCacheView[]>>;
  listKeys(): Promise<BridgeResult<GatewayKeyView[]>>;
  createKey(input: GatewayKeyInput): Promise<BridgeResult<CreatedGatewayKey>>;
  updateKey(id: string, input: GatewayKeyInput): Promise<BridgeResult<GatewayKeyView>>;
  /** Revokes a key: refused from the next request on. */
  revokeKey(id: string): Promise<BridgeResult<null>>;
  /** A new secret for the key; the old one is refused from the next request on. */
  rotateKey(id: string): Promise<BridgeResult<CreatedGatewayKey>>;
  /**
   * Points an agent at this gateway by writing its config files in the gateway machine's home
   * folder (a backup first); refused unless the gateway listens on loopback only.
   */
  connectAgent(agent: AgentId, input?: AgentConnectInput): Promise<BridgeResult<AgentConnection>>;
  /** Puts the agent's files back as they were before connect. */
  undoAgent(agent: AgentId): Promise<BridgeResult<AgentUndo>>;
}
