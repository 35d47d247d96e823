// The one contract between the engine, its two hosts and the renderer.
// Types only: this module must stay free of runtime dependencies so the preload,
// the renderer and the engine can all import it.

/** Wire format a client speaks (decided by the endpoint it calls). */
export type ClientFormat = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini';
/**
 * Wire format a provider speaks (`format` in the config file): `openai` serves Chat Completions
 * and Responses, `openai-chat` only Chat Completions (Ollama, LM Studio, DeepSeek, …),
 * `anthropic` Messages, `gemini` the Gemini API (`generateContent`).
 */
export type ProviderFormat = 'openai' | 'openai-chat' | 'anthropic' | 'gemini';
export type AuthClass = 'api_key' | 'oauth' | 'local';

// ---------------------------------------------------------------------------
// Configuration (config file, admin API, dashboard)
// ---------------------------------------------------------------------------

/** Upstream timeouts in milliseconds. Every field is optional where it appears in config. */
export interface UpstreamTimeouts {
  /** TCP/TLS connect. */
  connectMs: number;
  /** From sending the request to the response headers (non-streaming answers arrive whole). */
  firstByteMs: number;
  /** Longest silence between two body chunks. */
  idleMs: number;
  /** Hard deadline for one upstream attempt, headers and body together. */
  totalMs: number;
}

export interface GatewayApiKeyConfig {
  name: string;
  key: string;
  scopes?: string[];
  allowedConnections?: string[];
  limits?: KeyLimits;
}

/** `gateway.apiKeys[].limits`: each optional; a request over one gets 429 `budget_exceeded`. */
export interface KeyLimits {
  requestsPerMinute?: number;
  tokensPerDay?: number;
  usdPerDay?: number;
  usdPerMonth?: number;
}

export type KeyLimitName = keyof KeyLimits;

export interface GatewayConfig {
  host?: string;
  port?: number;
  apiKeys?: GatewayApiKeyConfig[];
  /** Largest accepted request body in bytes (default 32 MiB). */
  maxBodyBytes?: number;
  /** How long in-flight requests may run after SIGINT/SIGTERM before sockets are cut. */
  shutdownGraceMs?: number;
  timeouts?: Partial<UpstreamTimeouts>;
}

export interface ConnectionConfig {
  id: string;
  /** A literal secret. Stored, never logged, never returned by the API. */
  apiKey?: string;
  /** Name of an environment variable holding the secret (read at request time). */
  apiKeyEnv?: string;
  maxConcurrent?: number;
  enabled?: boolean;
  /** Never cool this connection (errors still show; model lockout is used instead). */
  disableCooling?: boolean;
  rateLimit?: ConnectionRateLimit;
  rateLimitOverrides?: RateLimitOverrides;
  /**
   * Anthropic subscription accounts (RESILIENCE.md §2): on the 5-hour usage limit, accept the
   * low-priority lane (`anthropic-usage-limit: slow`) instead of cooling the connection.
   */
  lowPriorityMode?: boolean;
  /** On the 5-hour usage limit, use the weekly limit reset first when it is available. */
  autoLimitReset?: boolean;
  /** The account's organization UUID, needed by `autoLimitReset`. Not a secret. */
  organizationUUID?: string;
}

/** Per-connection options stored with the connection (extend here, one JSON column). */
export interface ConnectionOptions {
  disableCooling?: boolean;
  rateLimit?: ConnectionRateLimit;
  rateLimitOverrides?: RateLimitOverrides;
  lowPriorityMode?: boolean;
  autoLimitReset?: boolean;
  organizationUUID?: string;
}

/** A connection's own request-queue limiter (Bottleneck): parallel jobs and requests per minute. */
export interface ConnectionRateLimit {
  concurrency?: number;
  requestsPerMinute?: number;
}

/** Per-connection values of the queue settings (`rateLimit.*`), winning over them. */
export interface RateLimitOverrides {
  maxWaitMs?: number;
  executionMaxWaitMs?: number;
  maxQueueDepth?: number;
}

/** Per-provider options stored with the provider. */
export interface ProviderOptions {
  /** Families of models sharing one quota: family name → model patterns (`*` wildcard). */
  quotaFamilies?: Record<string, string[]>;
}

export interface ProviderConfig {
  id: string;
  format: ProviderFormat;
  baseUrl: string;
  authClass: AuthClass;
  connections: ConnectionConfig[];
  models: ModelEntry[];
  timeouts?: Partial<UpstreamTimeouts>;
  enabled?: boolean;
  quotaFamilies?: Record<string, string[]>;
}

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
}

/** A model with what routing and accounting know of it; unset fields come from the defaults. */
export interface ModelSpec {
  id: string;
  /** Largest prompt plus answer the model accepts, in tokens. */
  contextWindow?: number;
  price?: ModelPrice;
}

/** `providers[].models[]`: a model id, or a model with its context window and price. */
export type ModelEntry = string | ModelSpec;

export type ComboStrategy =
  | 'priority'
  | 'weighted'
  | 'round-robin'
  | 'fill-first'
  | 'p2c'
  | 'random'
  | 'strict-random'
  | 'least-used'
  | 'cost-optimized'
  | 'reset-aware'
  | 'reset-window'
  | 'headroom'
  | 'lkgp'
  | 'context-optimized'
  | 'cache-optimized'
  | 'context-relay'
  | 'auto'
  | 'fusion'
  | 'pipeline'
  | 'quota-share';

/** `provider/model` or `provider/model@connection`, or that with a weight (default 1). */
export type ComboTarget = string | { target: string; weight?: number };

/** Weights of the `auto` score (each 0-100; unset ones take their default). */
export interface AutoWeights {
  health?: number;
  latency?: number;
  errorRate?: number;
  cost?: number;
  headroom?: number;
}

/** `combos[].options`: each strategy reads its own (docs/routing.md). */
export interface ComboOptions {
  /** round-robin: requests per turn (default 1). */
  stickyLimit?: number;
  /** least-used: the recent window in ms (default 5 min). */
  windowMs?: number;
  /** auto: the weights of its score. */
  weights?: AutoWeights;
  /** quota-share: what fairness counts (default requests). */
  unit?: 'requests' | 'tokens';
  /** quota-share: queue requests beyond `maxConcurrent` per connection (default on). */
  quotaShareConcurrencyLimit?: { enabled: boolean };
  /** context-relay: the target that writes a summary of older turns. */
  summarizer?: string;
  /** fusion: the targets asked in parallel. */
  panel?: string[];
  /** fusion: the target that writes the answer from the panel's. */
  judge?: string;
}

export interface ComboConfig {
  name: string;
  strategy: ComboStrategy;
  targets: ComboTarget[];
  options?: ComboOptions;
}

export interface BreakwaterConfig {
  gateway?: GatewayConfig;
  providers?: ProviderConfig[];
  combos?: ComboConfig[];
  /** Resilience settings (see RESILIENCE.md); persisted as settings on start. */
  resilience?: Record<string, unknown>;
}

/** A connection as the admin API and the dashboard see it: the secret is never included. */
export interface ConnectionView {
  id: string;
  provider: string;
  apiKeyEnv: string | null;
  /** True when a literal key is stored, or the named env var is set. */
  hasSecret: boolean;
  maxConcurrent: number | null;
  enabled: boolean;
  disableCooling: boolean;
  rateLimit: ConnectionRateLimit | null;
  rateLimitOverrides: RateLimitOverrides | null;
  lowPriorityMode: boolean;
  autoLimitReset: boolean;
  organizationUUID: string | null;
}

export interface ProviderView {
  id: string;
  format: ProviderFormat;
  baseUrl: string;
  authClass: AuthClass;
  /** Model ids; `modelSpecs` holds the ones configured with a context window or price. */
  models: string[];
  modelSpecs?: ModelSpec[];
  timeouts: Partial<UpstreamTimeouts>;
  enabled: boolean;
  quotaFamilies: Record<string, string[]>;
  connections: ConnectionView[];
}

export type SettingSource = 'default' | 'env' | 'saved';

export interface SettingView {
  key: string;
  value: unknown;
  defaultValue: unknown;
  source: SettingSource;
  /** Environment variable that changes the default, when there is one. */
  env: string | null;
  description: string;
  unit: string | null;
  min: number | null;
  max: number | null;
}

// ---------------------------------------------------------------------------
// Live state
// ---------------------------------------------------------------------------

export type BreakerStateName = 'CLOSED' | 'DEGRADED' | 'OPEN' | 'HALF_OPEN';

export interface BreakerTransition {
  at: number;
  from: BreakerStateName;
  to: BreakerStateName;
  cause: string;
}

export interface BreakerView {
  provider: string;
  state: BreakerStateName;
  failureCount: number;
  retryAfterMs: number;
  history: BreakerTransition[];
  /** End of the windowed provider cooldown (RESILIENCE.md §1, optional mechanism), if cooling. */
  cooldownUntil?: number | null;
}

export type ConnectionStatus =
  | 'active'
  | 'unavailable'
  | 'disabled'
  | 'banned'
  | 'expired'
  | 'credits_exhausted';

export interface ConnectionStateView {
  id: string;
  provider: string;
  status: ConnectionStatus;
  rateLimitedUntil: number | null;
  backoffLevel: number;
  lastError: string | null;
  errorCode: string | null;
  inFlight: number;
  maxConcurrent: number | null;
  /**
   * Anthropic subscription low-priority lane (RESILIENCE.md §2): `slow` while requests carry
   * `anthropic-usage-limit: slow`, `refused` while re-accepting it is refused; null otherwise.
   */
  lane?: 'slow' | 'refused' | null;
  laneUntil?: number | null;
}

export type LockoutScope = 'family' | 'model' | 'exact';

export interface LockoutView {
  provider: string;
  connection: string;
  model: string;
  scope: LockoutScope;
  reason: string;
  failureCount: number;
  expiresAt: number;
}

export interface QueueView {
  provider: string;
  connection: string;
  running: number;
  queued: number;
  rejected: number;
}

export type LeaseStateName = 'ACTIVE' | 'RELEASED' | 'EXPIRED' | 'INVALIDATED';

export interface LeaseView {
  connection: string;
  generation: number;
  state: LeaseStateName;
  expiresAt: number;
}

export interface SessionView {
  session: string;
  connection: string;
  expiresAt: number;
}

export interface GatewayView {
  version: string;
  host: string;
  port: number;
  baseUrl: string;
  startedAt: number;
  paused: boolean;
  requestsTotal: number;
  errorsTotal: number;
  inFlight: number;
}

export interface Snapshot {
  at: number;
  gateway: GatewayView;
  breakers: BreakerView[];
  connections: ConnectionStateView[];
  lockouts: LockoutView[];
  queues: QueueView[];
  leases: LeaseView[];
  sessions: SessionView[];
  /** Request-shape fixes learnt from providers' 400s (issue 17). */
  learnedFixes?: LearnedFixView[];
}

// ---------------------------------------------------------------------------
// Request log
// ---------------------------------------------------------------------------

export interface RequestLogEntry {
  id: number;
  at: number;
  clientFormat: ClientFormat;
  modelRequested: string;
  /** `provider/model` that served (or last failed) the request; null when nothing was tried. */
  target: string | null;
  provider: string | null;
  connection: string | null;
  status: number;
  latencyMs: number;
  ttfbMs: number | null;
  stream: boolean;
  bytesIn: number;
  bytesOut: number;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedTokens: number | null;
  /** Short machine-readable class, e.g. `upstream_5xx`, `network`, `client_abort`, `no_route`. */
  errorClass: string | null;
  errorMessage: string | null;
  /** How routing got there, e.g. `combo coder: anthropic/… failed (503), openai/… served`. */
  decision: string | null;
  /** Address this machine used to reach the upstream (per-connection egress IP). */
  egressIp: string | null;
  /** The gateway API key the request presented (its name), when keys are in use. */
  keyName?: string | null;
  cacheWriteTokens?: number | null;
  reasoningTokens?: number | null;
  /** From the model price table; null when the model has no price. */
  costUsd?: number | null;
}

// ---------------------------------------------------------------------------
// Gateway keys and usage (`/api/keys`, `/api/usage`)
// ---------------------------------------------------------------------------

/** What a key has used in each of its limits' current windows. */
export interface KeySpend {
  requestsThisMinute: number;
  tokensToday: number;
  usdToday: number;
  usdThisMonth: number;
}

/** A gateway API key as the admin API shows it: never its secret, only its first characters. */
export interface GatewayKeyView {
  id: string;
  name: string;
  /** The first characters of the secret, to tell keys apart. */
  prefix: string;
  scopes: string[];
  allowedConnections: string[];
  limits: KeyLimits;
  /** `config`: imported from `gateway.apiKeys` at start; `api`: created through the admin API. */
  source: 'config' | 'api';
  createdAt: number;
  revokedAt: number | null;
  spend: KeySpend;
}

/** `POST /api/keys` and `PATCH /api/keys/{id}` (every field optional on PATCH). */
export interface GatewayKeyInput {
  name?: string;
  scopes?: string[];
  allowedConnections?: string[];
  limits?: KeyLimits;
}

/** The answer of creating or rotating a key: the only time its secret is returned. */
export interface CreatedGatewayKey {
  id: string;
  name: string;
  key: string;
}

export type UsageGroupBy = 'model' | 'provider' | 'connection' | 'key' | 'combo' | 'session';

export interface UsageTotals {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  costUsd: number;
}

export interface UsageRow extends UsageTotals {
  group: string;
}

/** One time bucket of one group (`GET /api/usage?step=…`). */
export interface UsagePoint extends UsageRow {
  /** Start of the bucket, epoch ms. */
  at: number;
}

export interface UsageQuery {
  /** ISO time or a duration back from now (`30m`, `1h`, `7d`); default `24h`. */
  since?: string;
  by?: UsageGroupBy;
  /** With a step (`1m`, `1h`, `1d`), the answer also has `series`, one point per bucket. */
  step?: string;
}

export interface UsageReport {
  since: number;
  rows: UsageRow[];
  series?: UsagePoint[];
}

// ---------------------------------------------------------------------------
// Events: one stream for the dashboard, the tray and `/api/events`
// ---------------------------------------------------------------------------

interface EventBase {
  at: number;
}

/** Which request-shape repair acted (issue 17). */
export type ShapeMechanism = 'parameter' | 'effort' | 'tool_limit' | 'context';

/** A request-shape fix learnt from a provider's 400, applied to that provider and model from then on. */
export interface LearnedFixView {
  provider: string;
  model: string;
  param: string;
  mechanism: ShapeMechanism;
  /** What it does: `drop temperature`, `rename max_tokens to max_completion_tokens`, … */
  fix: string;
  /** The upstream's words that taught it (an excerpt, no secrets). */
  cause: string;
  learnedAt: number;
}

export type EngineEvent =
  | (EventBase & { type: 'request.completed'; entry: RequestLogEntry })
  /** A 400 about the request's shape was repaired and the request sent again (one attempt). */
  | (EventBase & {
      type: 'shape.repaired';
      provider: string;
      connection: string;
      model: string;
      mechanism: ShapeMechanism;
      param: string;
      /** What was changed, as in the decision header. */
      change: string;
      cause: string;
    })
  /** A provider stated its maximum number of tools; requests with more skip it from now on. */
  | (EventBase & {
      type: 'shape.tool_limit';
      provider: string;
      model: string;
      max: number;
      cause: string;
    })
  /** Learnt fixes were cleared by an operator (`param` null: every fix of that model, or all). */
  | (EventBase & {
      type: 'shape.forgotten';
      provider: string | null;
      model: string | null;
      count: number;
      cause: string;
    })
  | (EventBase & {
      type: 'config.changed';
      what: 'providers' | 'connections' | 'combos' | 'settings';
    })
  | (EventBase & { type: 'gateway.paused' | 'gateway.resumed' })
  | (EventBase & {
      type: 'breaker.transition';
      provider: string;
      from: BreakerStateName;
      to: BreakerStateName;
      cause: string;
    })
  | (EventBase & {
      type: 'connection.cooldown' | 'connection.terminal' | 'connection.recovered';
      provider: string;
      connection: string;
      status: ConnectionStatus;
      until: number | null;
      cause: string;
    })
  | (EventBase & { type: 'lockout.added' | 'lockout.cleared'; lockout: LockoutView; cause: string })
  | (EventBase & {
      type: 'queue.rejected';
      provider: string;
      connection: string;
      code: string;
      cause: string;
    })
  | (EventBase & { type: 'lease.acquired' | 'lease.ended'; lease: LeaseView; cause: string })
  | (EventBase & { type: 'provider.cooldown'; provider: string; until: number; cause: string })
  /** A provider's windowed cooldown ran out (announced by the read that noticed it). */
  | (EventBase & { type: 'provider.recovered'; provider: string; cause: string })
  /** A gateway key reached 80 % of one of its limits; once per key, limit and window. */
  | (EventBase & {
      type: 'budget.threshold';
      key: string;
      limit: KeyLimitName;
      used: number;
      max: number;
      resetsAt: number;
    });

export type EngineEventType = EngineEvent['type'];

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

/** Whether the proxy forwards requests (`POST /api/gateway/pause` / `resume`). */
export interface GatewayRunState {
  paused: boolean;
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
  getSettings(): Promise<BridgeResult<SettingView[]>>;
  updateSettings(values: Record<string, unknown>): Promise<BridgeResult<SettingView[]>>;
  /** Resets one provider's circuit breaker, or every breaker when `provider` is omitted. */
  resetBreaker(provider?: string): Promise<BridgeResult<unknown>>;
  /** Clears a connection's cooldown or terminal state (banned, expired, credits exhausted). */
  clearConnectionState(connection: string): Promise<BridgeResult<unknown>>;
  /** Re-enables a model locked out on one connection. */
  reenableModel(key: LockoutKey): Promise<BridgeResult<unknown>>;
  /** Ends the active exclusive lease on a connection (operator release). */
  releaseLease(connection: string): Promise<BridgeResult<unknown>>;
  /** Stops forwarding proxy requests (clients get 503) until `resume`. */
  pause(): Promise<BridgeResult<GatewayRunState>>;
  resume(): Promise<BridgeResult<GatewayRunState>>;
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
  listKeys(): Promise<BridgeResult<GatewayKeyView[]>>;
  createKey(input: GatewayKeyInput): Promise<BridgeResult<CreatedGatewayKey>>;
  updateKey(id: string, input: GatewayKeyInput): Promise<BridgeResult<GatewayKeyView>>;
  /** Revokes a key: refused from the next request on. */
  revokeKey(id: string): Promise<BridgeResult<null>>;
  /** A new secret for the key; the old one is refused from the next request on. */
  rotateKey(id: string): Promise<BridgeResult<CreatedGatewayKey>>;
}
