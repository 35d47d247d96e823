import type { SettingView } from '../../../shared/contract';
import { ValidationError } from '../config/validate';
import type { Logger } from '../logger';
import { SETTINGS, type SettingDef } from './registry';

export interface SettingsStore {
  all(): Record<string, unknown>;
  setMany(values: Record<string, unknown>): void;
  remove(key: string): boolean;
}

type Value = number | boolean;

function check(def: SettingDef, value: unknown): Value {
  if (def.kind === 'boolean') {
    if (typeof value !== 'boolean') throw new ValidationError(def.key, 'must be true or false');
    return value;
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

function parseEnv(def: SettingDef, raw: string): Value | undefined {
  if (def.kind === 'boolean') {
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    return undefined;
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

  constructor(
    private readonly store: SettingsStore,
    env: NodeJS.ProcessEnv,
    private readonly log: Logger,
    private readonly defs: readonly SettingDef[] = SETTINGS,
  ) {
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
      const def = this.def(key);
      if (!def) continue;
      if (def.kind === 'integer' && typeof raw === 'number' && Number.isFinite(raw)) {
        next.set(key, clamp(def, Math.round(raw)));
      } else if (def.kind === 'boolean' && typeof raw === 'boolean') {
        next.set(key, raw);
      } else {
        this.log.warn(`ignoring saved setting ${key}: stored value has the wrong type`);
      }
    }
    this.saved = next;
  }

  private def(key: string): SettingDef | undefined {
    return this.defs.find((d) => d.key === key);
  }

  number(key: string): number {
    const v = this.saved.get(key) ?? this.defaults.get(key)?.value;
    if (typeof v !== 'number') throw new Error(`unknown numeric setting ${key}`);
    return v;
  }

  boolean(key: string): boolean {
    const v = this.saved.get(key) ?? this.defaults.get(key)?.value;
    if (typeof v !== 'boolean') throw new Error(`unknown boolean setting ${key}`);
    return v;
  }

  /** Validates every value first; `null` clears a saved value (back to env/default). */
  update(values: Record<string, unknown>): void {
    const toSave: Record<string, Value> = {};
    const toClear: string[] = [];
    for (const [key, value] of Object.entries(values)) {
      const def = this.def(key);
      if (!def) throw new ValidationError(key, 'unknown setting');
      if (value === null) toClear.push(key);
      else toSave[key] = check(def, value);
    }
    this.store.setMany(toSave);
    for (const key of toClear) this.store.remove(key);
    this.reload();
  }

  /** Keys in `values` the registry does not know (for config-file warnings). */
  unknownKeys(values: Record<string, unknown>): string[] {
    return Object.keys(values).filter((k) => !this.def(k));
  }

  view(): SettingView[] {
    return this.defs.map((def) => {
      const base = this.defaults.get(def.key)!;
      const saved = this.saved.get(def.key);
      return {
        key: def.key,
        value: saved ?? base.value,
        defaultValue: def.defaultValue,
        source: saved !== undefined ? 'saved' : base.source,
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
