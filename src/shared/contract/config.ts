// Configuration: the config file, the admin API and the dashboard's forms and views.
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

export interface ConnectionConfig extends ConnectionOptions {
  id: string;
  /** A literal secret. Stored, never logged, never returned by the API. */
  apiKey?: string;
  /** Name of an environment variable holding the secret (read at request time). */
  apiKeyEnv?: string;
  maxConcurrent?: number;
  enabled?: boolean;
}

/** Per-connection options stored with the connection (extend here, one JSON column). */
export interface ConnectionOptions {
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
  promptCache?: PromptCacheOptions;
}

/**
 * What the gateway adds for the provider's prompt cache (docs/translation.md); both on unless
 * set to false.
 */
export interface PromptCacheOptions {
  /** Anthropic-format providers: `cache_control` breakpoints for clients that cannot write them. */
  breakpoints?: boolean;
  /** OpenAI-format providers: a `prompt_cache_key` from the session when the client sent none. */
  cacheKey?: boolean;
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
  promptCache?: PromptCacheOptions;
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
  /**
   * What the model can do. Listed: a request that needs a capability it lacks skips it
   * (docs/routing.md); unset: unknown, so capable of everything.
   */
  capabilities?: ModelCapability[];
}

export type ModelCapability = 'vision' | 'tools' | 'reasoning' | 'webSearch';

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
  /**
   * Any strategy: context editing for this combo's requests (trim the oldest turns when a target
   * says the prompt is too long), over the global `shapeRepair.contextEditing`; unset follows it.
   */
  contextEditing?: boolean;
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
  /** Where the resilience state lives; Redis shares it between instances (team mode). */
  state?: StateConfig;
  /** Routing rules, tried in order before the model name is resolved (docs/routing.md). */
  rules?: RuleConfig[];
  /** The search backend the gateway runs web searches on for providers without one (docs/web-search.md). */
  webSearch?: WebSearchConfig;
}

export type WebSearchBackend = 'searxng' | 'brave' | 'tavily';

/** `webSearch`: where the gateway searches when a provider cannot run the client's search tool. */
export interface WebSearchConfig {
  backend: WebSearchBackend;
  /** SearXNG: its base URL (required). Brave and Tavily: their API's URL, to reach a proxy or a fake. */
  url?: string;
  /** Brave and Tavily: the API key (a secret: stored encrypted, never shown back). */
  apiKey?: string;
  /** Brave and Tavily: the environment variable holding the API key. */
  apiKeyEnv?: string;
  /** Results per search given to the model (1-20, default 5). */
  maxResults?: number;
}

/** `webSearch` as the admin API and the dashboard see it: the key is never included. */
export interface WebSearchView {
  backend: WebSearchBackend;
  url: string | null;
  apiKeyEnv: string | null;
  /** True when a literal key is stored, or the named env var is set. */
  hasSecret: boolean;
  maxResults: number;
}

/** `rules[].when`: every condition set must hold (AND); an empty `when` matches everything. */
export interface RuleWhen {
  /** A glob on the requested model, case-insensitive (`*` any run, `?` one character). */
  model?: string;
  /** The request asks for reasoning (Anthropic `thinking`, `reasoning_effort`, …) or not. */
  thinking?: boolean;
  /** The estimated prompt size, in tokens. */
  minInputTokens?: number;
  maxInputTokens?: number;
  /** Any image in the input. */
  images?: boolean;
  /** A web search tool is present. */
  webSearch?: boolean;
  /** Any tool is present. */
  tools?: boolean;
  /** The client's API format. */
  client?: ClientFormat;
  /** The gateway key's name. */
  key?: string;
}

/** A routing rule: the first whose `when` holds sends the request to `use`. */
export interface RuleConfig {
  name: string;
  when: RuleWhen;
  /** A combo name or `provider/model`. */
  use: string;
}

/** A request to try against the rules (`POST /api/rules/test`, `breakwater rules test`). */
export interface RuleTestInput {
  /** The request body, as a client would send it. */
  request: unknown;
  /** The client's format (default `anthropic`). */
  client?: ClientFormat;
  /** The gateway key's name the request would come with. */
  key?: string;
}

/** Which rule a request would take, and why each rule before it did not. */
export interface RuleTestResult {
  /** The rule taken, or null: the model is resolved as it is. */
  matched: { name: string; use: string } | null;
  /** The rules tried before it (all of them when none matched), each with why it missed. */
  missed: { name: string; why: string }[];
  /** What the request was seen as, for checking a rule's conditions. */
  seen: {
    model: string;
    client: ClientFormat;
    key: string | null;
    thinking: boolean;
    images: boolean;
    webSearch: boolean;
    tools: boolean;
    inputTokens: number;
  };
}

export interface StateConfig {
  backend: 'local' | 'redis';
  /**
   * One of `url` (a single Redis), `cluster` (Redis Cluster seed URLs) or `sentinels` (with
   * `name`), required with `backend: "redis"` unless `BREAKWATER_REDIS_URL` or
   * `BREAKWATER_REDIS_CLUSTER` is set.
   */
  redis?: {
    url?: string;
    /** Seed nodes, `redis://[user:password@]host:port` (or `rediss://`). */
    cluster?: string[];
    /** Sentinel addresses, `host:port`. */
    sentinels?: string[];
    /** The master group the Sentinels monitor. */
    name?: string;
    sentinelPassword?: string;
    /** The data nodes' ACL user and password (Sentinel form; the others carry them in URLs). */
    username?: string;
    password?: string;
    keyPrefix?: string;
  };
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
  promptCache?: PromptCacheOptions;
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
