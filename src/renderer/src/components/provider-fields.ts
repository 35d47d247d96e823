// Parsing and payload building for the Providers page forms. The engine validates again with the
// shared schema (src/shared/schema), whose ranges and patterns these checks use; they only give a
// clear message next to the form before anything is sent.
import type {
  ConnectionConfig,
  ConnectionView,
  ProviderFormat,
  RateLimitOverrides,
} from '../../../shared/contract';
import {
  MAX_CONCURRENT_RANGE,
  RATE_LIMIT_OVERRIDE_RANGES,
  RATE_LIMIT_RANGES,
  UUID_PATTERN,
} from '../../../shared/schema/connection';
import type { Range } from '../../../shared/schema/values';

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** `family: pattern, pattern` per line, as the quota families text area shows them. */
export function formatQuotaFamilies(families: Record<string, string[]>): string {
  return Object.entries(families)
    .map(([name, patterns]) => `${name}: ${patterns.join(', ')}`)
    .join('\n');
}

/** Reads the quota families text area; blank lines are skipped. */
export function parseQuotaFamilies(text: string): Parsed<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line) continue;
    const where = `Quota families, line ${i + 1}`;
    const colon = line.indexOf(':');
    if (colon < 0) return { ok: false, error: `${where}: write "family: pattern, pattern"` };
    const name = line.slice(0, colon).trim();
    if (!name) return { ok: false, error: `${where}: the family name is missing before ":"` };
    if (Object.hasOwn(out, name)) {
      return { ok: false, error: `${where}: family "${name}" is already listed` };
    }
    const patterns = line
      .slice(colon + 1)
      .split(/[\s,]+/)
      .filter(Boolean);
    if (patterns.length === 0) {
      return { ok: false, error: `${where}: list at least one model pattern after ":"` };
    }
    out[name] = patterns;
  }
  return { ok: true, value: out };
}

/** A whole number in [min, max], or undefined when the field is empty. */
export function parseCount(
  text: string,
  label: string,
  { min, max }: Range,
): Parsed<number | undefined> {
  const t = text.trim();
  if (!t) return { ok: true, value: undefined };
  if (!/^\d+$/.test(t)) return { ok: false, error: `${label} must be a whole number` };
  const n = Number(t);
  if (n < min || n > max) {
    return { ok: false, error: `${label} must be between ${min} and ${max}` };
  }
  return { ok: true, value: n };
}

export const FORMAT_HINTS: Record<ProviderFormat, { label: string; hint: string; url: string }> = {
  openai: {
    label: 'OpenAI',
    hint: 'Responses and Chat Completions (OpenAI itself).',
    url: 'https://api.openai.com/v1',
  },
  'openai-chat': {
    label: 'OpenAI Chat Completions only',
    hint: 'Ollama, LM Studio, vLLM, DeepSeek…; Responses requests are translated.',
    url: 'http://127.0.0.1:11434/v1',
  },
  anthropic: {
    label: 'Anthropic',
    hint: 'Messages API; also Anthropic subscription accounts.',
    url: 'https://api.anthropic.com/v1',
  },
  gemini: {
    label: 'Google Gemini',
    hint: 'Gemini API (generateContent), key sent as x-goog-api-key.',
    url: 'https://generativelanguage.googleapis.com/v1beta',
  },
};

/** The connection form's fields, as text and switches. */
export interface ConnectionDraft {
  id: string;
  secretKind: 'env' | 'key';
  secret: string;
  maxConcurrent: string;
  disableCooling: boolean;
  concurrency: string;
  requestsPerMinute: string;
  maxWaitMs: string;
  executionMaxWaitMs: string;
  maxQueueDepth: string;
  lowPriorityMode: boolean;
  autoLimitReset: boolean;
  organizationUUID: string;
}

const text = (n: number | null | undefined): string => (n == null ? '' : String(n));

export function connectionDraft(c: ConnectionView | null): ConnectionDraft {
  return {
    id: c?.id ?? '',
    secretKind: c && !c.apiKeyEnv ? 'key' : 'env',
    secret: c?.apiKeyEnv ?? '',
    maxConcurrent: text(c?.maxConcurrent),
    disableCooling: c?.disableCooling ?? false,
    concurrency: text(c?.rateLimit?.concurrency),
    requestsPerMinute: text(c?.rateLimit?.requestsPerMinute),
    maxWaitMs: text(c?.rateLimitOverrides?.maxWaitMs),
    executionMaxWaitMs: text(c?.rateLimitOverrides?.executionMaxWaitMs),
    maxQueueDepth: text(c?.rateLimitOverrides?.maxQueueDepth),
    lowPriorityMode: c?.lowPriorityMode ?? false,
    autoLimitReset: c?.autoLimitReset ?? false,
    organizationUUID: c?.organizationUUID ?? '',
  };
}

export type DraftField = keyof ConnectionDraft;

/** What went wrong, and the field to mark invalid. */
export interface DraftError {
  field: DraftField;
  error: string;
}

function hasKeys(o: object | null | undefined): boolean {
  return !!o && Object.keys(o).length > 0;
}

/**
 * The save request for a connection form. Only what the user set is sent; the engine keeps
 * fields a save leaves out, so clearing something that was set sends `false`, `0` or `{}`.
 */
export function connectionPayload(
  d: ConnectionDraft,
  prev: ConnectionView | null,
  format: ProviderFormat,
): Parsed<ConnectionConfig> & { field?: DraftField } {
  const counts: [DraftField, string, Range][] = [
    ['maxConcurrent', 'Max concurrent', MAX_CONCURRENT_RANGE],
    ['concurrency', 'Queue concurrency', RATE_LIMIT_RANGES.concurrency],
    ['requestsPerMinute', 'Requests per minute', RATE_LIMIT_RANGES.requestsPerMinute],
    ['maxWaitMs', 'Max wait', RATE_LIMIT_OVERRIDE_RANGES.maxWaitMs],
    ['executionMaxWaitMs', 'Execution max wait', RATE_LIMIT_OVERRIDE_RANGES.executionMaxWaitMs],
    ['maxQueueDepth', 'Max queue depth', RATE_LIMIT_OVERRIDE_RANGES.maxQueueDepth],
  ];
  const n: Partial<Record<DraftField, number>> = {};
  for (const [field, label, range] of counts) {
    const r = parseCount(d[field] as string, label, range);
    if (!r.ok) return { ...r, field };
    if (r.value !== undefined) n[field] = r.value;
  }
  const uuid = d.organizationUUID.trim();
  const anthropic = format === 'anthropic';
  if (anthropic && uuid && !UUID_PATTERN.test(uuid)) {
    return {
      ok: false,
      field: 'organizationUUID',
      error: 'Organization UUID must look like 3f2b8c1e-0a4d-4e5f-9a7b-1c2d3e4f5a6b',
    };
  }
  if (anthropic && d.autoLimitReset && !uuid) {
    return {
      ok: false,
      field: 'organizationUUID',
      error: 'Automatic limit reset needs the organization UUID',
    };
  }
  const secret = d.secret.trim();
  const out: ConnectionConfig = { id: d.id.trim() };
  if (secret) out[d.secretKind === 'env' ? 'apiKeyEnv' : 'apiKey'] = secret;
  if (n.maxConcurrent !== undefined) out.maxConcurrent = n.maxConcurrent;
  else if (prev?.maxConcurrent) out.maxConcurrent = 0;
  // A switch is sent when on, or when it was on and is now cleared.
  if (d.disableCooling || prev?.disableCooling) out.disableCooling = d.disableCooling;
  const rateLimit = {
    ...(n.concurrency !== undefined ? { concurrency: n.concurrency } : {}),
    ...(n.requestsPerMinute !== undefined ? { requestsPerMinute: n.requestsPerMinute } : {}),
  };
  if (hasKeys(rateLimit) || hasKeys(prev?.rateLimit)) out.rateLimit = rateLimit;
  const overrides: RateLimitOverrides = {
    ...(n.maxWaitMs !== undefined ? { maxWaitMs: n.maxWaitMs } : {}),
    ...(n.executionMaxWaitMs !== undefined ? { executionMaxWaitMs: n.executionMaxWaitMs } : {}),
    ...(n.maxQueueDepth !== undefined ? { maxQueueDepth: n.maxQueueDepth } : {}),
  };
  if (hasKeys(overrides) || hasKeys(prev?.rateLimitOverrides)) {
    out.rateLimitOverrides = overrides;
  }
  if (anthropic) {
    if (d.lowPriorityMode || prev?.lowPriorityMode) out.lowPriorityMode = d.lowPriorityMode;
    if (d.autoLimitReset || prev?.autoLimitReset) out.autoLimitReset = d.autoLimitReset;
    if (uuid && uuid.toLowerCase() !== prev?.organizationUUID) out.organizationUUID = uuid;
  }
  return { ok: true, value: out };
}
