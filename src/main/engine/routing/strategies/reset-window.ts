import { nextReset, remainingShare } from '../rate-limit-headers';
import { byQuota } from './quota-order';
import type { Strategy } from './types';

/** The highest remaining quota per second until its reset first (a full bucket refilling soon). */
export const resetWindow: Strategy = (candidates, signals) =>
  byQuota(
    candidates,
    (c) => {
      const q = signals.quota(c.connection.id);
      if (!q) return undefined;
      const share = remainingShare(q);
      const at = nextReset(q);
      if (share === null || at === null) return undefined;
      // Negated: byQuota puts the lowest first.
      return -share / Math.max(1, (at - signals.now) / 1000);
    },
    (c, score) => {
      const q = signals.quota(c.connection.id)!;
      return `${Math.round(remainingShare(q)! * 100)} percent left, reset in ${Math.ceil(Math.max(0, nextReset(q)! - signals.now) / 1000)} s (${(-score * 100).toFixed(2)} percent a second)`;
    },
  );
