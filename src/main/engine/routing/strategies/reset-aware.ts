import { nextReset } from '../rate-limit-headers';
import { byQuota } from './quota-order';
import type { Strategy } from './types';

/** The connection whose quota resets soonest first: spend what resets anyway. */
export const resetAware: Strategy = (candidates, signals) =>
  byQuota(
    candidates,
    (c) => {
      const q = signals.quota(c.connection.id);
      const at = q ? nextReset(q) : null;
      return at === null ? undefined : Math.max(0, at - signals.now);
    },
    (_c, ms) => `quota resets in ${Math.ceil(ms / 1000)} s`,
  );
