// The readers every shape is built from. Each returns the value it accepts, or throws a
// ValidationError naming the dotted field and the reason.

import { ValidationError } from '../validation-error';

export type Obj = Record<string, unknown>;

/** An inclusive range of whole numbers. */
export interface Range {
  min: number;
  max: number;
}

export const DAY_MS = 86_400_000;
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function isPlainObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** `allowed: null` accepts any key (for maps checked elsewhere). */
export function object(value: unknown, field: string, allowed: readonly string[] | null): Obj {
  if (!isPlainObject(value)) throw new ValidationError(field || 'body', 'must be a JSON object');
  for (const key of Object.keys(value)) {
    if (allowed && !allowed.includes(key)) {
      const where = field ? `${field}.${key}` : key;
      throw new ValidationError(where, `unknown field (allowed: ${allowed.join(', ')})`);
    }
  }
  return value;
}

export function string(
  value: unknown,
  field: string,
  opts: { pattern?: RegExp; hint?: string } = {},
): string {
  if (!isNonEmptyString(value)) throw new ValidationError(field, 'must be a non-empty string');
  if (opts.pattern && !opts.pattern.test(value)) {
    throw new ValidationError(field, opts.hint ?? `must match ${opts.pattern}`);
  }
  return value;
}

export function optional<T>(value: unknown, read: (v: unknown) => T): T | undefined {
  return value === undefined ? undefined : read(value);
}

export function integer(value: unknown, field: string, { min, max }: Range): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new ValidationError(field, 'must be an integer');
  }
  if (value < min || value > max) {
    throw new ValidationError(field, `must be between ${min} and ${max}`);
  }
  return value;
}

/** An object of optional integers, each key with its own range; no other key is allowed. */
export function integers<K extends string>(
  value: unknown,
  field: string,
  ranges: Record<K, Range>,
): Partial<Record<K, number>> {
  const keys = Object.keys(ranges) as K[];
  const o = object(value, field, keys);
  const out: Partial<Record<K, number>> = {};
  for (const key of keys) {
    const v = optional(o[key], (x) => integer(x, `${field}.${key}`, ranges[key]));
    if (v !== undefined) out[key] = v;
  }
  return out;
}

export function boolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw new ValidationError(field, 'must be true or false');
  return value;
}

export function oneOf<T extends string>(value: unknown, field: string, options: readonly T[]): T {
  if (typeof value !== 'string' || !options.includes(value as T)) {
    throw new ValidationError(field, `must be one of ${options.map((o) => `"${o}"`).join(', ')}`);
  }
  return value as T;
}

export function array(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw new ValidationError(field, 'must be an array');
  return value;
}

export function identifier(value: unknown, field: string): string {
  return string(value, field, {
    pattern: ID_PATTERN,
    hint: 'must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
  });
}

export function uniqueBy<T>(items: T[], key: (item: T) => string, field: string): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const k = key(item);
    if (seen.has(k)) throw new ValidationError(`${field}[${i}]`, `duplicate "${k}"`);
    seen.add(k);
  });
}
