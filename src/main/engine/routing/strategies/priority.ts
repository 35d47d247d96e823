import type { Strategy } from './types';

/** The targets in the order the combo lists them: failover, nothing more. */
export const priority: Strategy = (candidates) => ({
  order: [...candidates],
  reason: 'configured order',
});
