import type { ConnectionStateView } from '../../../shared/contract';
import { TERMINAL } from '../state/model';
import type { Tone } from './ui';

/** How a connection's state reads in one word, and its tone. */
export function connectionBadge(c: ConnectionStateView, now: number): { tone: Tone; text: string } {
  if (TERMINAL.has(c.status)) return { tone: 'bad', text: c.status.replace('_', ' ') };
  if (c.status === 'disabled') return { tone: 'idle', text: 'disabled' };
  if (c.rateLimitedUntil && c.rateLimitedUntil > now) return { tone: 'warn', text: 'cooling' };
  if (c.status === 'unavailable') return { tone: 'warn', text: 'unavailable' };
  return { tone: 'ok', text: 'active' };
}
