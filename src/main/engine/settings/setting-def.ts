/**
 * Every tunable number or switch of the engine, with its default, the environment variable that
 * may change that default, and its allowed range. Resilience mechanisms add their own entries
 * here so the dashboard, the API and the docs all read one list.
 */
export interface SettingDef {
  key: string;
  kind: 'integer' | 'boolean' | 'string' | 'json';
  defaultValue: number | boolean | string | unknown[] | Record<string, unknown>;
  /**
   * For `string` and `json`: checks and normalises a value, throwing a ValidationError (field =
   * the key) on anything invalid. Values read at start that fail it fall back to the default.
   */
  validate?: (value: unknown, key: string) => unknown;
  env?: string;
  min?: number;
  max?: number;
  unit?: 'ms' | 'bytes' | 'days' | 'count' | 'failures';
  description: string;
}

/** A rule spanning several settings (e.g. max ≥ base); returns the problem or null. */
export interface CrossCheck {
  /** The key errors are reported on. */
  key: string;
  /** Every key the rule reads (rules whose keys a registry lacks are skipped). */
  keys: string[];
  check(get: (key: string) => unknown): string | null;
}
