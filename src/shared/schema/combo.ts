import type { ComboConfig, ComboOptions, ComboStrategy, ComboTarget } from '../contract';
import { ValidationError } from '../validation-error';
import { array, boolean, ID_PATTERN, integer, object, oneOf, optional, string } from './values';

export const STRATEGIES: readonly ComboStrategy[] = [
  'priority',
  'weighted',
  'round-robin',
  'fill-first',
  'p2c',
  'random',
  'strict-random',
  'least-used',
  'cost-optimized',
  'reset-aware',
  'reset-window',
  'headroom',
  'lkgp',
  'context-optimized',
  'cache-optimized',
  'context-relay',
  'auto',
  'fusion',
  'pipeline',
  'quota-share',
];

/** Which options each strategy reads: any other is refused, so none is silently ignored. */
export const STRATEGY_OPTIONS: Readonly<Partial<Record<ComboStrategy, readonly string[]>>> = {
  'round-robin': ['stickyLimit'],
  'least-used': ['windowMs'],
  auto: ['weights'],
  'quota-share': ['unit', 'quotaShareConcurrencyLimit'],
  'context-relay': ['summarizer'],
  fusion: ['panel', 'judge'],
};

/** Options every strategy reads (request-shape repairs, docs/resilience.md). */
export const COMMON_OPTIONS: readonly string[] = ['contextEditing'];

/** Options a strategy cannot work without. */
const REQUIRED_OPTIONS: Readonly<Partial<Record<ComboStrategy, readonly string[]>>> = {
  'context-relay': ['summarizer'],
  fusion: ['panel', 'judge'],
};

/** Strategies that call upstream more than once per request (proxy/pipeline/orchestrate.ts). */
export const MULTI_CALL_STRATEGIES: readonly ComboStrategy[] = [
  'context-relay',
  'fusion',
  'pipeline',
];

/** A fusion panel this large would be a fan-out attack on the user's own quota. */
export const MAX_PANEL = 8;
/** Pipeline steps: each is a paid upstream call, made one after the other. */
export const MAX_PIPELINE_STEPS = 8;

const AUTO_WEIGHTS = ['health', 'latency', 'errorRate', 'cost', 'headroom'] as const;
const MAX_WEIGHT = 1_000_000;

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

/**
 * The targets a combo routes to: a fusion combo names them in its options (panel, then judge),
 * every other combo in `targets`.
 */
export function comboTargets(combo: ComboConfig): readonly ComboTarget[] {
  if (combo.strategy !== 'fusion') return combo.targets;
  return [...(combo.options?.panel ?? []), ...(combo.options?.judge ? [combo.options.judge] : [])];
}

/** The `provider/model[@connection]` a combo target names. */
export function targetRefOf(t: ComboTarget): string {
  return typeof t === 'string' ? t : t.target;
}

export function weightOf(t: ComboTarget): number {
  return typeof t === 'string' ? 1 : (t.weight ?? 1);
}

function targetString(value: unknown, field: string): string {
  const target = string(value, field);
  if (!parseTargetRef(target)) {
    throw new ValidationError(field, 'must be "provider/model" or "provider/model@connection"');
  }
  return target;
}

function validateTarget(value: unknown, field: string): ComboTarget {
  if (typeof value === 'string') return targetString(value, field);
  const o = object(value, field, ['target', 'weight']);
  const target = targetString(o.target, `${field}.target`);
  if (o.weight === undefined) return { target };
  const weight = o.weight;
  if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0 || weight > MAX_WEIGHT) {
    throw new ValidationError(`${field}.weight`, `must be a number from 0 to ${MAX_WEIGHT}`);
  }
  return { target, weight };
}

function validateOptions(value: unknown, field: string, strategy: ComboStrategy): ComboOptions {
  const allowed = [...(STRATEGY_OPTIONS[strategy] ?? []), ...COMMON_OPTIONS];
  const o = object(value, field, null);
  for (const key of Object.keys(o)) {
    if (!allowed.includes(key)) {
      throw new ValidationError(
        `${field}.${key}`,
        `is not an option of ${strategy} (its options: ${allowed.join(', ')})`,
      );
    }
  }
  const out: ComboOptions = {};
  const sticky = optional(o.stickyLimit, (v) =>
    integer(v, `${field}.stickyLimit`, { min: 1, max: 1_000_000 }),
  );
  if (sticky !== undefined) out.stickyLimit = sticky;
  const windowMs = optional(o.windowMs, (v) =>
    integer(v, `${field}.windowMs`, { min: 1000, max: 3_600_000 }),
  );
  if (windowMs !== undefined) out.windowMs = windowMs;
  if (o.weights !== undefined) {
    const w = object(o.weights, `${field}.weights`, AUTO_WEIGHTS);
    out.weights = {};
    for (const key of AUTO_WEIGHTS) {
      const n = optional(w[key], (v) =>
        integer(v, `${field}.weights.${key}`, { min: 0, max: 100 }),
      );
      if (n !== undefined) out.weights[key] = n;
    }
  }
  if (o.unit !== undefined) {
    out.unit = oneOf<'requests' | 'tokens'>(o.unit, `${field}.unit`, ['requests', 'tokens']);
  }
  const summarizer = optional(o.summarizer, (v) => targetString(v, `${field}.summarizer`));
  if (summarizer !== undefined) out.summarizer = summarizer;
  const judge = optional(o.judge, (v) => targetString(v, `${field}.judge`));
  if (judge !== undefined) out.judge = judge;
  if (o.panel !== undefined) {
    const panel = array(o.panel, `${field}.panel`).map((t, i) =>
      targetString(t, `${field}.panel[${i}]`),
    );
    if (panel.length === 0 || panel.length > MAX_PANEL) {
      throw new ValidationError(`${field}.panel`, `must list 1 to ${MAX_PANEL} targets`);
    }
    if (new Set(panel).size !== panel.length) {
      throw new ValidationError(`${field}.panel`, 'must not list a target twice');
    }
    out.panel = panel;
  }
  for (const key of REQUIRED_OPTIONS[strategy] ?? []) {
    if (o[key] === undefined) {
      throw new ValidationError(`${field}.${key}`, `is required by ${strategy}`);
    }
  }
  if (o.quotaShareConcurrencyLimit !== undefined) {
    const q = object(o.quotaShareConcurrencyLimit, `${field}.quotaShareConcurrencyLimit`, [
      'enabled',
    ]);
    out.quotaShareConcurrencyLimit = {
      enabled: boolean(q.enabled ?? true, `${field}.quotaShareConcurrencyLimit.enabled`),
    };
  }
  if (o.contextEditing !== undefined) {
    out.contextEditing = boolean(o.contextEditing, `${field}.contextEditing`);
  }
  return out;
}

export function validateCombo(value: unknown, field: string): ComboConfig {
  const o = object(value, field, ['name', 'strategy', 'targets', 'options']);
  const name = string(o.name, `${field}.name`, {
    pattern: /^[^\s/]{1,128}$/,
    hint: 'must be 1-128 characters without spaces or "/"',
  });
  const strategy = oneOf(o.strategy ?? 'priority', `${field}.strategy`, STRATEGIES);
  // A fusion combo names its targets in its options: `targets` would be a second, ignored list.
  const fusion = strategy === 'fusion';
  const targets = array(o.targets ?? (fusion ? [] : undefined), `${field}.targets`).map((t, i) =>
    validateTarget(t, `${field}.targets[${i}]`),
  );
  if (fusion && targets.length > 0) {
    throw new ValidationError(
      `${field}.targets`,
      'must be empty for fusion (its targets are options.panel and options.judge)',
    );
  }
  if (!fusion && targets.length === 0) {
    throw new ValidationError(`${field}.targets`, 'must not be empty');
  }
  if (strategy === 'pipeline' && targets.length > MAX_PIPELINE_STEPS) {
    throw new ValidationError(
      `${field}.targets`,
      `a pipeline runs at most ${MAX_PIPELINE_STEPS} steps (one paid upstream call each), not ${targets.length}`,
    );
  }
  if (strategy === 'weighted' && targets.every((t) => weightOf(t) === 0)) {
    throw new ValidationError(`${field}.targets`, 'weighted needs at least one weight above 0');
  }
  const combo: ComboConfig = { name, strategy, targets };
  const options = validateOptions(o.options ?? {}, `${field}.options`, strategy);
  if (Object.keys(options).length > 0) combo.options = options;
  return combo;
}
