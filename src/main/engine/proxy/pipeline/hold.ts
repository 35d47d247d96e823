import type { UpstreamTimeouts } from '../../../../shared/contract';
import type { FlowHold } from '../../resilience/flow';
import { QueueRejection } from '../../resilience/flow';
import type { Candidate } from '../../routing/resolve';
import type { GatewayError } from '../../wire/client-errors';
import type { Attempt, AttemptStage } from './attempt';
import { CONTINUE, type Decision, skip } from './decision';
import type { PipelineDeps } from './deps';

/**
 * Attempt stage: flow control (RESILIENCE.md §4-§5). Takes the connection's `maxConcurrent`
 * permit and a request-queue slot, waiting in line when the connection is busy; a queue that
 * refuses (full, or the wait ran out) passes over the connection, and the refusal is the answer
 * if no candidate is attempted at all.
 */
export const hold: AttemptStage = { name: 'hold', enter: holdFor };

function holdFor(a: Attempt): Decision | Promise<Decision> {
  const { candidate, deps } = a;
  a.timeouts = timeoutsFor(candidate, deps);
  a.attemptMs = Math.min(a.timeouts.totalMs, a.dispatch.budgetEnd - a.now);
  const held = deps.flow.hold(
    candidate.target.provider.id,
    candidate.connection,
    a.attemptMs,
    a.cancel,
    () => a.cancel.abort(new ExecutionExpiredError()),
  );
  return held instanceof Promise ? held.then((h) => holding(a, h)) : holding(a, held);
}

function holding(a: Attempt, held: FlowHold | QueueRejection): Decision {
  if (!(held instanceof QueueRejection)) {
    a.handle.holds(held);
    return CONTINUE;
  }
  // A client that left while queued is not a refusal worth reporting.
  if (a.ctx.clientGone) return CONTINUE;
  a.dispatch.queueRejection = held;
  a.deps.events?.({ code: held.code, candidate: a.candidate, message: held.message });
  return skip(held.code, held.retryAfterMs, held.message);
}

/** The answer when the request queues refused every candidate and nothing was attempted. */
export function queueRefusal(r: QueueRejection): GatewayError {
  return {
    status: 429,
    kind: 'rate_limit',
    code: r.code,
    message: r.message,
    headers:
      r.retryAfterMs !== null
        ? { 'retry-after': String(Math.max(1, Math.ceil(r.retryAfterMs / 1000))) }
        : {},
  };
}

/** Abort reason when the request queue's execution limit ends an attempt. */
export class ExecutionExpiredError extends Error {
  constructor() {
    super('execution limit of the request queue reached');
  }
}

// A provider's own timeouts over the settings, merged once per provider and settings change.
const mergedTimeouts = new WeakMap<
  Candidate['target']['provider'],
  { base: Readonly<UpstreamTimeouts>; merged: Readonly<UpstreamTimeouts> }
>();

function timeoutsFor(candidate: Candidate, deps: PipelineDeps): Readonly<UpstreamTimeouts> {
  const base = deps.timeouts();
  const provider = candidate.target.provider;
  const known = mergedTimeouts.get(provider);
  if (known?.base === base) return known.merged;
  const merged = { ...base, ...provider.timeouts };
  mergedTimeouts.set(provider, { base, merged });
  return merged;
}
