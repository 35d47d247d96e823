import type { SettingView } from '../../../shared/contract';
import { ValidationError } from '../../../shared/validation-error';
import type { Logger } from '../logger';
import { CROSS_CHECKS, SETTINGS } from './registry';
import type { CrossCheck, SettingDef } from './setting-def';

export interface SettingsStore {
  all(): Record<string, unknown>;
  setMany(values: Record<string, unknown>): void;
  remove(key: string): boolean;
}

type Value = unknown;

function check(def: SettingDef, value: unknown): Value {
  if (def.kind === 'boolean') {
    if (typeof value !== 'boolean') throw new ValidationError(def.key, 'must be true or false');
    return value;
  }
  if (def.kind === 'string') {
    if (typeof value !== 'string') throw new ValidationError(def.key, 'must be a string');
    return def.validate ? def.validate(value, def.key) : value;
  }
  if (def.kind === 'json') {
    return def.validate ? def.validate(value, def.key) : value;
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new ValidationError(def.key, `must be an integer${def.unit ? ` (${def.unit})` : ''}`);
  }
  if ((def.min !== undefined && value < def.min) || (def.max !== undefined && value > def.max)) {
    throw new ValidationError(def.key, `must be between ${def.min} and ${def.max}`);
  }
  return value;
}

function clamp(def: SettingDef, value: number): number {
  return Math.min(def.max ?? value, Math.max(def.min ?? value, value));
}

/** A value read at start (env or saved): numbers are clamped, anything else must validate. */
function coerce(def: SettingDef, value: unknown): Value | undefined {
  if (def.kind === 'integer') {
    return typeof value === 'number' && Number.isFinite(value)
      ? clamp(def, Math.round(value))
      : undefined;
  }
  try {
    return check(def, value);
  } catch {
    return undefined;
  }
}

function parseEnv(def: SettingDef, raw: string): Value | undefined {
  if (def.kind === 'boolean') {
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    return undefined;
  }
  if (def.kind === 'string') return coerce(def, raw);
  if (def.kind === 'json') {
    try {
      return coerce(def, JSON.parse(raw));
    } catch {
      return undefined;
    }
  }
  if (!/^\s*-?\d+(\.\d+)?\s*$/.test(raw)) return undefined;
  return clamp(def, Math.round(Number(raw)));
}

/**
 * Effective settings with the precedence of RESILIENCE.md: env (changes only the default) <
 * saved value. Values read at start are clamped; updates out of range are rejected whole.
 */
export class Settings {
  private readonly defaults = new Map<string, { value: Value; source: 'default' | 'env' }>();
  private saved = new Map<string, Value>();
  private readonly byKey: Map<string, SettingDef>;
  /** Bumped whenever values may have changed, so `derived` getters know to recompute. */
  private version = 0;

  constructor(
    private readonly store: SettingsStore,
    env: NodeJS.ProcessEnv,
    private readonly log: Logger,
    private readonly defs: readonly SettingDef[] = SETTINGS,
    private readonly crossChecks: readonly CrossCheck[] = CROSS_CHECKS,
  ) {
    this.byKey = new Map(defs.map((d) => [d.key, d]));
    for (const def of defs) {
      const raw = def.env ? env[def.env] : undefined;
      const fromEnv = raw === undefined || raw === '' ? undefined : parseEnv(def, raw);
      if (raw && fromEnv === undefined) {
        log.warn(`ignoring ${def.env}=${JSON.stringify(raw)}: not a valid ${def.kind}`);
      }
      this.defaults.set(
        def.key,
        fromEnv === undefined
          ? { value: def.defaultValue, source: 'default' }
          : { value: fromEnv, source: 'env' },
      );
    }
    this.reload();
  }

  private reload(): void {
    const next = new Map<string, Value>();
    for (const [key, raw] of Object.entries(this.store.all())) {
      const def = this.byKey.get(key);
      if (!def) continue;
      const value = coerce(def, raw);
      if (value === undefined)
        this.log.warn(`ignoring saved setting ${key}: stored value is not valid`);
      else next.set(key, value);
    }
    this.saved = next;
    this.version++;
  }

  /**
   * A value computed from settings, recomputed only after an update: the request path reads
   * timeouts, profiles and limits several times per request, and they change rarely.
   */
  derived<T>(compute: (settings: Settings) => T): () => T {
    let seen = -1;
    let value: T;
    return () => {
      if (seen !== this.version) {
        value = compute(this);
        seen = this.version;
      }
      return value;
    };
  }

  private def(key: string): SettingDef | undefined {
    return this.byKey.get(key);
  }

  /** The effective value; throws for a key the registry does not know (a programming error). */
  get(key: string): unknown {
    if (this.saved.has(key)) return this.saved.get(key);
    const d = this.defaults.get(key);
    if (!d) throw new Error(`unknown setting ${key}`);
    return d.value;
  }

  number(key: string): number {
    const v = this.get(key);
    if (typeof v !== 'number') throw new Error(`setting ${key} is not numeric`);
    return v;
  }

  boolean(key: string): boolean {
    const v = this.get(key);
    if (typeof v !== 'boolean') throw new Error(`setting ${key} is not boolean`);
    return v;
  }

  string(key: string): string {
    const v = this.get(key);
    if (typeof v !== 'string') throw new Error(`setting ${key} is not a string`);
    return v;
  }

  /**
   * Validates every value, then the rules spanning several settings against the result, and
   * only then saves; `null` clears a saved value (back to env/default). All or nothing.
   */
  update(values: Record<string, unknown>): void {
    const toSave: Record<string, Value> = {};
    const toClear: string[] = [];
    for (const [key, value] of Object.entries(values)) {
      const def = this.def(key);
      if (!def) throw new ValidationError(key, 'unknown setting');
      if (value === null) toClear.push(key);
      else toSave[key] = check(def, value);
    }
    const after = (key: string): unknown => {
      if (key in toSave) return toSave[key];
      if (toClear.includes(key)) return this.defaults.get(key)?.value;
      return this.get(key);
    };
    for (const rule of this.crossChecks) {
      if (!rule.keys.every((k) => this.byKey.has(k))) continue;
      const problem = rule.check(after);
      if (problem) throw new ValidationError(rule.key, problem);
    }
    this.store.setMany(toSave);
    for (const key of toClear) this.store.remove(key);
    this.reload();
  }

  /** Keys in `values` the registry does not know (for config-file warnings). */
  unknownKeys(values: Record<string, unknown>): string[] {
    return Object.keys(values).filter((k) => !this.def(k));
  }

  view(prefixes?: readonly string[]): SettingView[] {
    const defs = prefixes
      ? this.defs.filter((d) => prefixes.some((p) => d.key.startsWith(p)))
      : this.defs;
    return defs.map((def) => {
      const base = this.defaults.get(def.key)!;
      const saved = this.saved.has(def.key);
      return {
        key: def.key,
        value: saved ? this.saved.get(def.key) : base.value,
        defaultValue: def.defaultValue,
        source: saved ? 'saved' : base.source,
        env: def.env ?? null,
        description: def.description,
        unit: def.unit ?? null,
        min: def.min ?? null,
        max: def.max ?? null,
      };
    });
  }
}

/** `{a: {b: 1}}` → `{'a.b': 1}`: config files nest, settings keys are dotted. */
export function flattenSettings(
  value: Record<string, unknown>,
  prefix = '',
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      Object.assign(out, flattenSettings(v as Record<string, unknown>, key));
    } else {
      out[key] = v;
    }
  }
  return out;
}
