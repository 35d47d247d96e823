// Checks of the resilience settings whose values are more than a number or a switch: status
// code lists, the emergency fallback target, and the operator error rules.

import { ValidationError } from '../../../shared/validation-error';
import { RULE_REASONS } from './resilience-defaults';

const DAY = 86_400_000;

export function validateErrorCodes(value: unknown, key: string): number[] {
  if (!Array.isArray(value) || !value.every((v) => Number.isInteger(v) && v >= 400 && v <= 599)) {
    throw new ValidationError(key, 'must be an array of HTTP status codes between 400 and 599');
  }
  return [...new Set(value as number[])].sort((a, b) => a - b);
}

export function validateFallback(value: unknown, key: string): string {
  if (typeof value !== 'string') throw new ValidationError(key, 'must be a string');
  const v = value.trim();
  if (v !== '' && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\/.+$/.test(v)) {
    throw new ValidationError(key, 'must be empty or "provider/model"');
  }
  return v;
}

/** A combo name or empty; whether the combo exists is checked by the admin service. */
export function validateComboName(value: unknown, key: string): string {
  if (typeof value !== 'string') throw new ValidationError(key, 'must be a string');
  const v = value.trim();
  if (v.length > 200) throw new ValidationError(key, 'must be at most 200 characters');
  return v;
}

const RULE_FIELDS = [
  'provider',
  'id',
  'status',
  'textMarkers',
  'headers',
  'reason',
  'scope',
  'cooldownMs',
];

export function validateRules(value: unknown, key: string): unknown[] {
  if (!Array.isArray(value)) throw new ValidationError(key, 'must be an array of rules');
  return value.map((r, i) => {
    const at = `${key}[${i}]`;
    if (typeof r !== 'object' || r === null || Array.isArray(r))
      throw new ValidationError(at, 'must be an object');
    const rule = r as Record<string, unknown>;
    for (const f of Object.keys(rule)) {
      if (!RULE_FIELDS.includes(f))
        throw new ValidationError(
          `${at}.${f}`,
          `unknown field (allowed: ${RULE_FIELDS.join(', ')})`,
        );
    }
    if (typeof rule.provider !== 'string' || !rule.provider)
      throw new ValidationError(`${at}.provider`, 'must name a provider id');
    if (typeof rule.id !== 'string' || !rule.id)
      throw new ValidationError(`${at}.id`, 'must be a non-empty string');
    const statuses =
      rule.status === undefined ? [] : Array.isArray(rule.status) ? rule.status : [rule.status];
    if (
      !statuses.every((s) => Number.isInteger(s) && (s as number) >= 400 && (s as number) <= 599)
    ) {
      throw new ValidationError(
        `${at}.status`,
        'must be a status code 400-599 or an array of them',
      );
    }
    if (
      rule.textMarkers !== undefined &&
      (!Array.isArray(rule.textMarkers) ||
        !rule.textMarkers.every((m) => typeof m === 'string' && m))
    ) {
      throw new ValidationError(`${at}.textMarkers`, 'must be an array of non-empty strings');
    }
    if (rule.headers !== undefined) {
      const h = rule.headers;
      if (
        typeof h !== 'object' ||
        h === null ||
        Array.isArray(h) ||
        !Object.values(h).every((v) => typeof v === 'string')
      ) {
        throw new ValidationError(`${at}.headers`, 'must map header names to strings');
      }
    }
    if (!RULE_REASONS.includes(rule.reason as never)) {
      throw new ValidationError(`${at}.reason`, `must be one of ${RULE_REASONS.join(', ')}`);
    }
    if (!['model', 'provider', 'connection'].includes(rule.scope as string)) {
      throw new ValidationError(`${at}.scope`, 'must be "model", "provider" or "connection"');
    }
    if (
      rule.scope === 'connection' &&
      (rule.reason === 'permanent' || rule.reason === 'credits_exhausted')
    ) {
      throw new ValidationError(
        `${at}.reason`,
        'a connection-scoped rule cools the connection; it cannot be permanent or credits',
      );
    }
    if (
      rule.cooldownMs !== undefined &&
      (!Number.isInteger(rule.cooldownMs) ||
        (rule.cooldownMs as number) < 1000 ||
        (rule.cooldownMs as number) > 7 * DAY)
    ) {
      throw new ValidationError(
        `${at}.cooldownMs`,
        'must be an integer between 1000 and 604800000',
      );
    }
    return rule;
  });
}
