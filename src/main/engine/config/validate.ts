import type {
  AuthClass,
  BreakwaterConfig,
  ComboConfig,
  ConnectionConfig,
  GatewayApiKeyConfig,
  GatewayConfig,
  ProviderFormat,
  ProviderInput,
  UpstreamTimeouts,
} from '../../../shared/contract';
import { ValidationError } from '../../../shared/validation-error';
import { findSetting } from '../settings/registry';

export { ValidationError };

type Obj = Record<string, unknown>;

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FORMATS: readonly ProviderFormat[] = ['openai', 'openai-chat', 'anthropic'];
const AUTH_CLASSES: readonly AuthClass[] = ['api_key', 'oauth', 'local'];
const STRATEGIES: readonly ComboConfig['strategy'][] = ['priority'];
const TIMEOUT_KEYS: readonly (keyof UpstreamTimeouts)[] = [
  'connectMs',
  'firstByteMs',
  'idleMs',
  'totalMs',
];
const DAY_MS = 86_400_000;

/** `allowed: null` accepts any key (for maps checked elsewhere). */
function object(value: unknown, field: string, allowed: readonly string[] | null): Obj {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError(field || 'body', 'must be a JSON object');
  }
  for (const key of Object.keys(value)) {
    if (allowed && !allowed.includes(key)) {
      const where = field ? `${field}.${key}` : key;
      throw new ValidationError(where, `unknown field (allowed: ${allowed.join(', ')})`);
    }
  }
  return value as Obj;
}

function string(
  value: unknown,
  field: string,
  opts: { pattern?: RegExp; hint?: string } = {},
): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new ValidationError(field, 'must be a non-empty string');
  }
  if (opts.pattern && !opts.pattern.test(value)) {
    throw new ValidationError(field, opts.hint ?? `must match ${opts.pattern}`);
  }
  return value;
}

function optional<T>(value: unknown, read: (v: unknown) => T): T | undefined {
  return value === undefined ? undefined : read(value);
}

function integer(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new ValidationError(field, 'must be an integer');
  }
  if (value < min || value > max) {
    throw new ValidationError(field, `must be between ${min} and ${max}`);
  }
  return value;
}

function boolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw new ValidationError(field, 'must be true or false');
  return value;
}

function oneOf<T extends string>(value: unknown, field: string, options: readonly T[]): T {
  if (typeof value !== 'string' || !options.includes(value as T)) {
    throw new ValidationError(field, `must be one of ${options.map((o) => `"${o}"`).join(', ')}`);
  }
  return value as T;
}

function array(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw new ValidationError(field, 'must be an array');
  return value;
}

function identifier(value: unknown, field: string): string {
  return string(value, field, {
    pattern: ID_PATTERN,
    hint: 'must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
  });
}

function uniqueBy<T>(items: T[], key: (item: T) => string, field: string): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const k = key(item);
    if (seen.has(k)) throw new ValidationError(`${field}[${i}]`, `duplicate "${k}"`);
    seen.add(k);
  });
}

export function validateTimeouts(value: unknown, field: string): Partial<UpstreamTimeouts> {
  const o = object(value, field, TIMEOUT_KEYS);
  const out: Partial<UpstreamTimeouts> = {};
  for (const key of TIMEOUT_KEYS) {
    // Same ranges as the global timeout settings, so a per-provider value cannot be absurd.
    const def = findSetting(`timeouts.${key}`);
    const v = optional(o[key], (x) =>
      integer(x, `${field}.${key}`, def?.min ?? 1, def?.max ?? DAY_MS),
    );
    if (v !== undefined) out[key] = v;
  }
  return out;
}

function validateBaseUrl(value: unknown, field: string): string {
  const raw = string(value, field);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError(field, 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError(field, 'must use http or https');
  }
  if (url.username || url.password) {
    throw new ValidationError(field, 'must not contain credentials; use a connection apiKey');
  }
  if (url.search || url.hash) throw new ValidationError(field, 'must not have a query or fragment');
  return raw.replace(/\/+$/, '');
}

export function validateConnection(value: unknown, field: string): ConnectionConfig {
  const o = object(value, field, [
    'id',
    'apiKey',
    'apiKeyEnv',
    'maxConcurrent',
    'enabled',
    'disableCooling',
    'rateLimit',
    'rateLimitOverrides',
    'lowPriorityMode',
    'autoLimitReset',
    'organizationUUID',
  ]);
  const conn: ConnectionConfig = { id: identifier(o.id, `${field}.id`) };
  const apiKey = optional(o.apiKey, (v) => string(v, `${field}.apiKey`));
  const apiKeyEnv = optional(o.apiKeyEnv, (v) =>
    string(v, `${field}.apiKeyEnv`, {
      pattern: ENV_NAME_PATTERN,
      hint: 'must be an environment variable name',
    }),
  );
  if (apiKey !== undefined && apiKeyEnv !== undefined) {
    throw new ValidationError(field, 'set either apiKey or apiKeyEnv, not both');
  }
  if (apiKey !== undefined) conn.apiKey = apiKey;
  if (apiKeyEnv !== undefined) conn.apiKeyEnv = apiKeyEnv;
  const maxConcurrent = optional(o.maxConcurrent, (v) =>
    integer(v, `${field}.maxConcurrent`, 0, 10_000),
  );
  if (maxConcurrent !== undefined) conn.maxConcurrent = maxConcurrent;
  const enabled = optional(o.enabled, (v) => boolean(v, `${field}.enabled`));
  if (enabled !== undefined) conn.enabled = enabled;
  const disableCooling = optional(o.disableCooling, (v) => boolean(v, `${field}.disableCooling`));
  if (disableCooling !== undefined) conn.disableCooling = disableCooling;
  if (o.rateLimit !== undefined) {
    const r = object(o.rateLimit, `${field}.rateLimit`, ['concurrency', 'requestsPerMinute']);
    conn.rateLimit = {};
    const concurrency = optional(r.concurrency, (v) =>
      integer(v, `${field}.rateLimit.concurrency`, 0, 10_000),
    );
    if (concurrency !== undefined) conn.rateLimit.concurrency = concurrency;
    const rpm = optional(r.requestsPerMinute, (v) =>
      integer(v, `${field}.rateLimit.requestsPerMinute`, 0, 1_000_000),
    );
    if (rpm !== undefined) conn.rateLimit.requestsPerMinute = rpm;
  }
  if (o.rateLimitOverrides !== undefined) {
    const at = `${field}.rateLimitOverrides`;
    const r = object(o.rateLimitOverrides, at, [
      'maxWaitMs',
      'executionMaxWaitMs',
      'maxQueueDepth',
    ]);
    conn.rateLimitOverrides = {};
    const wait = optional(r.maxWaitMs, (v) => integer(v, `${at}.maxWaitMs`, 1, DAY_MS));
    if (wait !== undefined) conn.rateLimitOverrides.maxWaitMs = wait;
    const exec = optional(r.executionMaxWaitMs, (v) =>
      integer(v, `${at}.executionMaxWaitMs`, 1, DAY_MS),
    );
    if (exec !== undefined) conn.rateLimitOverrides.executionMaxWaitMs = exec;
    const depth = optional(r.maxQueueDepth, (v) => integer(v, `${at}.maxQueueDepth`, 0, 100_000));
    if (depth !== undefined) conn.rateLimitOverrides.maxQueueDepth = depth;
  }
  validateSubscriptionOptions(o, conn, field);
  return conn;
}

/** The subscription options exist only for connections of an Anthropic-format provider. */
export function checkSubscriptionProvider(
  format: ProviderFormat,
  conn: ConnectionConfig,
  field: string,
): void {
  if (format === 'anthropic') return;
  const opt = conn.lowPriorityMode
    ? 'lowPriorityMode'
    : conn.autoLimitReset
      ? 'autoLimitReset'
      : null;
  if (opt) {
    throw new ValidationError(
      `${field}.${opt}`,
      'applies to Anthropic subscription accounts only (a provider with format "anthropic")',
    );
  }
}

/** `lowPriorityMode`, `autoLimitReset`, `organizationUUID` (Anthropic subscription accounts). */
function validateSubscriptionOptions(o: Obj, conn: ConnectionConfig, field: string): void {
  const low = optional(o.lowPriorityMode, (v) => boolean(v, `${field}.lowPriorityMode`));
  if (low !== undefined) conn.lowPriorityMode = low;
  const reset = optional(o.autoLimitReset, (v) => boolean(v, `${field}.autoLimitReset`));
  if (reset !== undefined) conn.autoLimitReset = reset;
  const org = optional(o.organizationUUID, (v) =>
    string(v, `${field}.organizationUUID`, {
      pattern: UUID_PATTERN,
      hint: 'must be a UUID such as 3f2b8c1e-0a4d-4e5f-9a7b-1c2d3e4f5a6b',
    }),
  );
  if (org !== undefined) conn.organizationUUID = org.toLowerCase();
  if (conn.autoLimitReset && conn.organizationUUID === undefined) {
    throw new ValidationError(
      `${field}.organizationUUID`,
      'is required when autoLimitReset is on (the limit reset is made for that organization)',
    );
  }
}

export function validateProvider(value: unknown, field: string): ProviderInput {
  const o = object(value, field, [
    'id',
    'format',
    'baseUrl',
    'authClass',
    'connections',
    'models',
    'timeouts',
    'enabled',
    'quotaFamilies',
  ]);
  const id = identifier(o.id, `${field}.id`);
  const models = array(o.models ?? [], `${field}.models`).map((m, i) =>
    string(m, `${field}.models[${i}]`),
  );
  const provider: ProviderInput = {
    id,
    format: oneOf(o.format, `${field}.format`, FORMATS),
    baseUrl: validateBaseUrl(o.baseUrl, `${field}.baseUrl`),
    authClass: oneOf(o.authClass ?? 'api_key', `${field}.authClass`, AUTH_CLASSES),
    models: [...new Set(models)],
  };
  if (o.connections !== undefined) {
    const connections = array(o.connections, `${field}.connections`).map((c, i) =>
      validateConnection(c, `${field}.connections[${i}]`),
    );
    uniqueBy(connections, (c) => c.id, `${field}.connections`);
    for (const [i, c] of connections.entries()) {
      checkSubscriptionProvider(provider.format, c, `${field}.connections[${i}]`);
    }
    provider.connections = connections;
  }
  const timeouts = optional(o.timeouts, (v) => validateTimeouts(v, `${field}.timeouts`));
  if (timeouts !== undefined) provider.timeouts = timeouts;
  const enabled = optional(o.enabled, (v) => boolean(v, `${field}.enabled`));
  if (enabled !== undefined) provider.enabled = enabled;
  if (o.quotaFamilies !== undefined) {
    const families = object(o.quotaFamilies, `${field}.quotaFamilies`, null);
    provider.quotaFamilies = Object.fromEntries(
      Object.entries(families).map(([name, patterns]) => [
        name,
        array(patterns, `${field}.quotaFamilies.${name}`).map((p, i) =>
          string(p, `${field}.quotaFamilies.${name}[${i}]`),
        ),
      ]),
    );
  }
  return provider;
}

/** `provider/model` or `provider/model@connection`. */
export interface TargetRef {
  provider: string;
  model: string;
  connection: string | null;
}

export function parseTargetRef(target: string): TargetRef | null {
  const slash = target.indexOf('/');
  if (slash <= 0 || slash === target.length - 1) return null;
  const provider = target.slice(0, slash);
  let model = target.slice(slash + 1);
  let connection: string | null = null;
  const at = model.lastIndexOf('@');
  if (at > 0) {
    connection = model.slice(at + 1);
    model = model.slice(0, at);
    if (!ID_PATTERN.test(connection)) return null;
  }
  if (!ID_PATTERN.test(provider) || model.length === 0) return null;
  return { provider, model, connection };
}

export function validateCombo(value: unknown, field: string): ComboConfig {
  const o = object(value, field, ['name', 'strategy', 'targets']);
  const name = string(o.name, `${field}.name`, {
    pattern: /^[^\s/]{1,128}$/,
    hint: 'must be 1-128 characters without spaces or "/"',
  });
  const targets = array(o.targets, `${field}.targets`).map((t, i) => {
    const target = string(t, `${field}.targets[${i}]`);
    if (!parseTargetRef(target)) {
      throw new ValidationError(
        `${field}.targets[${i}]`,
        'must be "provider/model" or "provider/model@connection"',
      );
    }
    return target;
  });
  if (targets.length === 0) throw new ValidationError(`${field}.targets`, 'must not be empty');
  return {
    name,
    strategy: oneOf(o.strategy ?? 'priority', `${field}.strategy`, STRATEGIES),
    targets,
  };
}

function validateApiKey(value: unknown, field: string): GatewayApiKeyConfig {
  const o = object(value, field, ['name', 'key', 'scopes', 'allowedConnections']);
  const key = string(o.key, `${field}.key`);
  if (key.length < 16) throw new ValidationError(`${field}.key`, 'must be at least 16 characters');
  const out: GatewayApiKeyConfig = { name: string(o.name, `${field}.name`), key };
  const scopes = optional(o.scopes, (v) =>
    array(v, `${field}.scopes`).map((s, i) => string(s, `${field}.scopes[${i}]`)),
  );
  if (scopes) out.scopes = scopes;
  const allowed = optional(o.allowedConnections, (v) =>
    array(v, `${field}.allowedConnections`).map((s, i) =>
      identifier(s, `${field}.allowedConnections[${i}]`),
    ),
  );
  if (allowed) out.allowedConnections = allowed;
  return out;
}

export function validateGateway(value: unknown, field: string): GatewayConfig {
  const o = object(value, field, [
    'host',
    'port',
    'apiKeys',
    'maxBodyBytes',
    'shutdownGraceMs',
    'timeouts',
  ]);
  const out: GatewayConfig = {};
  const host = optional(o.host, (v) => string(v, `${field}.host`));
  if (host !== undefined) out.host = host;
  const port = optional(o.port, (v) => integer(v, `${field}.port`, 0, 65_535));
  if (port !== undefined) out.port = port;
  if (o.apiKeys !== undefined) {
    const keys = array(o.apiKeys, `${field}.apiKeys`).map((k, i) =>
      validateApiKey(k, `${field}.apiKeys[${i}]`),
    );
    uniqueBy(keys, (k) => k.name, `${field}.apiKeys`);
    out.apiKeys = keys;
  }
  const maxBody = optional(o.maxBodyBytes, (v) =>
    integer(v, `${field}.maxBodyBytes`, 1024, 1024 * 1024 * 1024),
  );
  if (maxBody !== undefined) out.maxBodyBytes = maxBody;
  const grace = optional(o.shutdownGraceMs, (v) =>
    integer(v, `${field}.shutdownGraceMs`, 0, 10 * 60_000),
  );
  if (grace !== undefined) out.shutdownGraceMs = grace;
  const timeouts = optional(o.timeouts, (v) => validateTimeouts(v, `${field}.timeouts`));
  if (timeouts !== undefined) out.timeouts = timeouts;
  return out;
}

/**
 * Validates a whole config file, including duplicate ids. Combo targets may name providers that
 * exist only in the database, so they are checked against the catalog when applied.
 */
export function validateConfig(value: unknown): BreakwaterConfig {
  const o = object(value, '', ['$schema', 'gateway', 'providers', 'combos', 'resilience']);
  const config: BreakwaterConfig = {};
  if (o.gateway !== undefined) config.gateway = validateGateway(o.gateway, 'gateway');
  const providers = array(o.providers ?? [], 'providers').map((p, i) => {
    const provider = validateProvider(p, `providers[${i}]`);
    return { ...provider, connections: provider.connections ?? [] };
  });
  uniqueBy(providers, (p) => p.id, 'providers');
  const connectionOwner = new Map<string, string>();
  providers.forEach((p, i) => {
    p.connections.forEach((c, j) => {
      const other = connectionOwner.get(c.id);
      if (other !== undefined) {
        throw new ValidationError(
          `providers[${i}].connections[${j}].id`,
          `duplicate "${c.id}" (already used by provider "${other}"; connection ids are global)`,
        );
      }
      connectionOwner.set(c.id, p.id);
    });
  });
  config.providers = providers;
  const combos = array(o.combos ?? [], 'combos').map((c, i) => validateCombo(c, `combos[${i}]`));
  uniqueBy(combos, (c) => c.name, 'combos');
  config.combos = combos;
  if (o.resilience !== undefined) {
    // Keys are checked against the settings registry when the config is applied.
    config.resilience = object(o.resilience, 'resilience', null);
  }
  return config;
}
