import type { Catalog } from '../../config/catalog';
import type { Admitted } from '../../resilience/manager';
import { DeadlineError } from '../../upstream/attempt';
import { readUpstreamError } from '../../upstream/upstream-errors';
import type { Attempt, AttemptOutcome, AttemptStage } from './attempt';
import { CONTINUE, type Decision, skip } from './decision';

/**
 * Attempt stage: the provider's circuit breaker (RESILIENCE.md §1) admits the call, or passes
 * over the candidate (open, or a half-open probe already out). It comes after any wait in the
 * hold, so a half-open probe is not held while queued. From here the attempt counts as made:
 * it has a deadline and a place in the connection's in-flight count.
 */
export const admit: AttemptStage = {
  name: 'admit',
  enter(a: Attempt): Decision | Promise<Decision> {
    const startedAt = a.ctx.now();
    const remaining = Math.max(1, Math.min(a.attemptMs, a.dispatch.budgetEnd - startedAt));
    const admitted = a.deps.resilience.admit(a.candidate, startedAt, startedAt + remaining);
    // Only a half-open probe in team mode waits (for the team's probe permit).
    return admitted instanceof Promise
      ? admitted.then((x) => admitting(a, x, startedAt, remaining))
      : admitting(a, admitted, startedAt, remaining);
  },

  /**
   * The breaker, cooldown and lockout learn the outcome (§7), and a success pins the session to
   * the connection (§9). A watchdog trip is Breakwater's own stream handling, neither a failure
   * nor a success: its admission is only given back, and no pin is made.
   */
  settle(a: Attempt, outcome: AttemptOutcome): void {
    const { ctx, candidate, deps, probe } = a;
    const resilience = deps.resilience;
    switch (outcome.kind) {
      case 'expired':
        a.handle.settle();
        return;
      case 'unreachable':
        a.handle.settle();
        resilience.onNetworkFailure(candidate, probe, ctx.now(), outcome.failure.message);
        return;
      case 'refused': {
        a.handle.settle();
        const { status, raw, cls } = outcome.held;
        resilience.onUpstreamError(
          candidate,
          probe,
          cls,
          {
            status,
            message: upstreamMessageOf(raw, status, ctx.catalog),
            requestStartedAt: a.startedAt,
            egressIp: ctx.egressIp,
          },
          ctx.now(),
        );
        return;
      }
      case 'broke':
        a.handle.settle();
        resilience.onNetworkFailure(
          candidate,
          probe,
          ctx.now(),
          ctx.errorMessage ?? 'stream broke off',
        );
        return;
      case 'served':
        a.handle.settle();
        resilience.onSuccess(candidate, probe, ctx.now());
        if (a.dispatch.session)
          deps.flow.pin(a.dispatch.session, candidate.connection.id, ctx.now());
        return;
      default:
        return;
    }
  },
};

function admitting(a: Attempt, admitted: Admitted, startedAt: number, remaining: number): Decision {
  if (!admitted.ok) {
    const ex = admitted.exclusion;
    return skip(ex.reason, ex.retryAfterMs, ex.detail);
  }
  a.startedAt = startedAt;
  a.remaining = remaining;
  a.probe = admitted.probe;
  a.dispatch.attempted++;
  a.ctx.served = a.candidate;
  a.handle.admit(admitted.ticket, remaining, () => a.cancel.abort(new DeadlineError(remaining)));
  return CONTINUE;
}

/** The upstream's own error message, scrubbed, for logs, events and the dashboard. */
function upstreamMessageOf(raw: Buffer, status: number, catalog: Catalog): string {
  return readUpstreamError(raw, catalog.secrets()).message || `HTTP ${status} with an empty body`;
}
