import type { Attempt, AttemptStage } from './attempt';
import { CONTINUE, type Decision, skip } from './decision';

/**
 * Attempt stage: a candidate the resilience state rules out is passed over: its provider's
 * circuit is open or cooling down, its connection is cooling down or terminal, or its model is
 * locked out on that connection (RESILIENCE.md §1-§3).
 */
export const exclude: AttemptStage = { name: 'exclude', enter: excluded };

function excluded(a: Attempt): Decision {
  const ex = a.deps.resilience.exclusion(a.candidate, a.now);
  if (!ex) return CONTINUE;
  return skip(ex.reason, ex.retryAfterMs, ex.detail, ex.errorType ?? null);
}
