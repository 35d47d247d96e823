import { remainingShare } from '../rate-limit-headers';
import { byQuota } from './quota-order';
import type { Strategy } from './types';

/** The most remaining requests/tokens (the smaller share of the two limits) first. */
export const headroom: Strategy = (candidates, signals) =>
  byQuota(
    candidates,
    (c) => {
      const q = signals.quota(c.connection.id);
      const share = q ? remainingShare(q) : null;
      return share === null ? undefined : -share;
    },
    // No '%' in reasons: the decision header percent-encodes what is not printable ASCII.
    (_c, score) => `${Math.round(-score * 100)} percent of its quota left`,
  );
