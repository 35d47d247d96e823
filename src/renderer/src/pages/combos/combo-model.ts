// What the combos page shows, as pure functions: the editor's draft and the combo it makes, what
// a strategy intends, and what the combo actually did over its latest requests.

import type { ComboConfig, ComboStrategy, RequestLogEntry } from '../../../../shared/contract';
import { targetRefOf, validateCombo, weightOf } from '../../../../shared/schema/combo';
import { ValidationError } from '../../../../shared/validation-error';

/** The editor's fields as typed: one target a line, `provider/model` or `provider/model *3`. */
export interface ComboDraft {
  name: string;
  strategy: ComboStrategy;
  targets: string;
  /** Option values as typed, by option name (`weights.cost` for auto's weights). */
  options: Record<string, string>;
}

export const EMPTY_DRAFT: ComboDraft = { name: '', strategy: 'priority', targets: '', options: {} };

const WEIGHTED_LINE = /^(\S+)\s*\*\s*(\S+)$/;

export function draftOf(c: ComboConfig): ComboDraft {
  const options: Record<string, string> = {};
  for (const [key, value] of Object.entries(c.options ?? {})) {
    if (key === 'weights' && value && typeof value === 'object') {
      for (const [w, n] of Object.entries(value)) options[`weights.${w}`] = String(n);
    } else if (Array.isArray(value)) options[key] = value.join('\n');
    else options[key] = String(value);
  }
  return {
    name: c.name,
    strategy: c.strategy,
    targets: c.targets
      .map((t) =>
        typeof t === 'string' || t.weight === undefined
          ? targetRefOf(t)
          : `${t.target} *${t.weight}`,
      )
      .join('\n'),
    options,
  };
}

function numberOr(text: string): number | string {
  const n = Number(text);
  return text.trim() !== '' && Number.isFinite(n) ? n : text;
}

/** The combo a draft describes, checked by the same schema as the config file and the API. */
/** Options that list targets, typed one a line like `targets`. */
const LIST_OPTIONS = new Set(['panel']);

const lines = (text: string) =>
  text
    .split(/\n|,/)
    .map((l) => l.trim())
    .filter(Boolean);

export function comboOf(d: ComboDraft): { combo: ComboConfig } | { error: string; field: string } {
  const targets: unknown[] = lines(d.targets).map((line) => {
    const m = WEIGHTED_LINE.exec(line);
    return m ? { target: m[1], weight: numberOr(m[2]!) } : line;
  });
  const options: Record<string, unknown> = {};
  for (const [key, text] of Object.entries(d.options)) {
    if (text.trim() === '') continue;
    if (key.startsWith('weights.')) {
      const weights = (options.weights ?? {}) as Record<string, unknown>;
      weights[key.slice('weights.'.length)] = numberOr(text);
      options.weights = weights;
    } else if (LIST_OPTIONS.has(key)) options[key] = lines(text);
    else if (key === 'contextEditing')
      options[key] = text === 'true' ? true : text === 'false' ? false : text;
    else options[key] = numberOr(text);
  }
  try {
    const raw = { name: d.name.trim(), strategy: d.strategy, targets, options };
    return { combo: validateCombo(raw, 'combo') };
  } catch (err) {
    if (err instanceof ValidationError) return { error: err.message, field: err.field };
    throw err;
  }
}

/** What the strategy means to do, in words, next to what it did. */
export function intentOf(c: ComboConfig): string {
  const names = c.targets.map(targetRefOf);
  const total = c.targets.reduce((s, t) => s + weightOf(t), 0);
  switch (c.strategy) {
    case 'priority':
      return `all to ${names[0]} while it is healthy, then the next in order`;
    case 'weighted':
      return c.targets
        .map((t) => `${targetRefOf(t)} ${total > 0 ? Math.round((weightOf(t) / total) * 100) : 0}%`)
        .join(', ');
    case 'round-robin':
      return `each target in turn, ${c.options?.stickyLimit ?? 1} request(s) a turn: about ${Math.round(100 / names.length)}% each`;
    case 'random':
    case 'strict-random':
      return `about ${Math.round(100 / names.length)}% each${c.strategy === 'strict-random' ? ', each once per cycle' : ''}`;
    case 'fill-first':
      return `${names[0]} until it is saturated, then the next`;
    case 'p2c':
      return 'the less loaded of two random targets';
    case 'least-used':
      return `the target with the fewest requests in the last ${Math.round((c.options?.windowMs ?? 300_000) / 60_000)} min`;
    case 'cost-optimized':
      return 'the cheapest target for each request';
    case 'reset-aware':
      return 'the connection whose quota resets soonest';
    case 'reset-window':
      return 'the most quota left per second until its reset';
    case 'headroom':
      return 'the connection with the most quota left';
    case 'lkgp':
      return 'the last target that succeeded, until it fails';
    case 'context-optimized':
      return 'the smallest context window that fits each request';
    case 'cache-optimized':
      return 'the target that served the same prompt prefix';
    case 'auto':
      return 'the best score of health, latency, error rate, cost and headroom';
    case 'quota-share':
      return 'fair turns between gateway keys, then the less loaded of two random connections';
    case 'fusion':
      return `${c.options?.panel?.join(', ')} answer in parallel; ${c.options?.judge} writes the answer from theirs`;
    case 'pipeline':
      return `${names.join(' → ')}, each refining the answer before`;
    case 'context-relay':
      return `a session keeps its target (${names.join(', ')}); moved to a smaller window, older turns are summarised by ${c.options?.summarizer}`;
  }
}

export interface ComboActivity {
  /** Requests counted (at most `limit`). */
  total: number;
  /** Served target → requests, most first; `none` for requests nothing served. */
  split: { target: string; count: number; share: number }[];
  /** The decision of the newest request. */
  latest: string | null;
}

/** The combo's newest `limit` requests (rows newest first), split by the target that served. */
export function activityOf(
  rows: readonly RequestLogEntry[],
  combo: string,
  limit = 100,
): ComboActivity {
  const mine = rows.filter((r) => r.modelRequested === combo).slice(0, limit);
  const counts = new Map<string, number>();
  for (const r of mine) {
    const key = r.status < 400 && r.target ? r.target : 'none';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return {
    total: mine.length,
    split: [...counts]
      .map(([target, count]) => ({ target, count, share: count / mine.length }))
      .sort((a, b) => b.count - a.count || a.target.localeCompare(b.target)),
    latest: mine[0]?.decision ?? null,
  };
}

/** Rows from two sources (a fetch and the live event stream), newest first, each once. */
export function mergeRows(
  a: readonly RequestLogEntry[],
  b: readonly RequestLogEntry[],
): RequestLogEntry[] {
  const byId = new Map<number, RequestLogEntry>();
  for (const r of [...a, ...b]) byId.set(r.id, r);
  return [...byId.values()].sort((x, y) => y.id - x.id);
}
