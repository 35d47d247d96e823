import type { LockoutKey } from '../contract';

/** The fields that name one model lockout; each is a non-empty string. */
export const LOCKOUT_KEY_FIELDS: readonly (keyof LockoutKey)[] = [
  'provider',
  'connection',
  'model',
];
