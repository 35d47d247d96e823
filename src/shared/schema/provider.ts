import type {
  AuthClass,
  ModelCapability,
  ModelEntry,
  ModelPrice,
  ProviderFormat,
  ProviderInput,
} from '../contract';
import { ValidationError } from '../validation-error';
import { checkSubscriptionProvider, validateConnection } from './connection';
import { type TimeoutRanges, validateTimeouts } from './timeouts';
import {
  array,
  boolean,
  identifier,
  integer,
  isPlainObject,
  object,
  oneOf,
  optional,
  string,
  uniqueBy,
} from './values';

export const FORMATS: readonly ProviderFormat[] = ['openai', 'openai-chat', 'anthropic', 'gemini'];
export const AUTH_CLASSES: readonly AuthClass[] = ['api_key', 'oauth', 'local'];

/** Longer than any API's base URL; a bound so a hostile body cannot store megabytes as one. */
const MAX_URL_CHARS = 2_048;

/** An API's base URL: absolute http(s), no credentials, query or fragment; no trailing `/`. */
export function validateBaseUrl(value: unknown, field: string): string {
  const raw = string(value, field);
  if (raw.length > MAX_URL_CHARS) {
    throw new ValidationError(field, `must be at most ${MAX_URL_CHARS} characters`);
  }
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

export function validateProvider(
  value: unknown,
  field: string,
  timeoutRanges: TimeoutRanges,
): ProviderInput {
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
    'promptCache',
  ]);
  const id = identifier(o.id, `${field}.id`);
  // A model id listed twice is harmless and dropped; an id with two specs is a contradiction.
  const models = array(o.models ?? [], `${field}.models`)
    .map((m, i) => validateModelEntry(m, `${field}.models[${i}]`))
    .filter((m, i, all) => typeof m !== 'string' || all.indexOf(m) === i);
  uniqueBy(models, modelIdOf, `${field}.models`);
  const provider: ProviderInput = {
    id,
    format: oneOf(o.format, `${field}.format`, FORMATS),
    baseUrl: validateBaseUrl(o.baseUrl, `${field}.baseUrl`),
    authClass: oneOf(o.authClass ?? 'api_key', `${field}.authClass`, AUTH_CLASSES),
    models,
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
  const timeouts = optional(o.timeouts, (v) =>
    validateTimeouts(v, `${field}.timeouts`, timeoutRanges),
  );
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
  if (o.promptCache !== undefined) {
    const pc = object(o.promptCache, `${field}.promptCache`, ['breakpoints', 'cacheKey']);
    const breakpoints = optional(pc.breakpoints, (v) =>
      boolean(v, `${field}.promptCache.breakpoints`),
    );
    const cacheKey = optional(pc.cacheKey, (v) => boolean(v, `${field}.promptCache.cacheKey`));
    provider.promptCache = {
      ...(breakpoints !== undefined ? { breakpoints } : {}),
      ...(cacheKey !== undefined ? { cacheKey } : {}),
    };
  }
  return provider;
}

/** The id a `providers[].models[]` entry names. */
export function modelIdOf(m: ModelEntry): string {
  return typeof m === 'string' ? m : m.id;
}

const MAX_CONTEXT_WINDOW = 100_000_000;
const MAX_PRICE = 100_000;

function price(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_PRICE) {
    throw new ValidationError(
      field,
      `must be a number of USD per million tokens, 0 to ${MAX_PRICE}`,
    );
  }
  return value;
}

export const CAPABILITIES: readonly ModelCapability[] = [
  'vision',
  'tools',
  'reasoning',
  'webSearch',
];

/** A model's `capabilities`: each known one at most once. */
export function validateCapabilities(value: unknown, field: string): ModelCapability[] {
  const list = array(value, field).map((c, i) => oneOf(c, `${field}[${i}]`, CAPABILITIES));
  if (new Set(list).size !== list.length) {
    throw new ValidationError(field, 'must not list a capability twice');
  }
  return list;
}

/** A model id, or `{ id, contextWindow, price: { input, output, cacheRead }, capabilities }`. */
export function validateModelEntry(value: unknown, field: string): ModelEntry {
  if (!isPlainObject(value)) return string(value, field);
  const o = object(value, field, ['id', 'contextWindow', 'price', 'capabilities']);
  const entry: ModelEntry = { id: string(o.id, `${field}.id`) };
  const window = optional(o.contextWindow, (v) =>
    integer(v, `${field}.contextWindow`, { min: 1, max: MAX_CONTEXT_WINDOW }),
  );
  if (window !== undefined) entry.contextWindow = window;
  if (o.price !== undefined) {
    const p = object(o.price, `${field}.price`, ['input', 'output', 'cacheRead']);
    const out: ModelPrice = {
      input: price(p.input, `${field}.price.input`),
      output: price(p.output, `${field}.price.output`),
    };
    const cacheRead = optional(p.cacheRead, (v) => price(v, `${field}.price.cacheRead`));
    if (cacheRead !== undefined) out.cacheRead = cacheRead;
    entry.price = out;
  }
  if (o.capabilities !== undefined) {
    entry.capabilities = validateCapabilities(o.capabilities, `${field}.capabilities`);
  }
  return entry;
}
