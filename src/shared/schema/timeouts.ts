import type { UpstreamTimeouts } from '../contract';
import { integers, type Range } from './values';

/** The allowed range of each upstream timeout; the engine takes them from its timeout settings. */
export type TimeoutRanges = Record<keyof UpstreamTimeouts, Range>;

export const TIMEOUT_KEYS: readonly (keyof UpstreamTimeouts)[] = [
  'connectMs',
  'firstByteMs',
  'idleMs',
  'totalMs',
];

export function validateTimeouts(
  value: unknown,
  field: string,
  ranges: TimeoutRanges,
): Partial<UpstreamTimeouts> {
  return integers(value, field, ranges);
}
