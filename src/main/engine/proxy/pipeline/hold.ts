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
  a.timeouts = timeoutsFor(a.candidate, a.deps);
  a.attemptMs = Math.min(a.timeouts.totalMs, a.dispatch.budgetEnd - a.now);
  const held = take(a);
  if (!(held instanceof Promise)) return holding(a, held, null);
  const since = a.ctx.now();
  return held.then((h) => holding(a, h, since));
}

function take(a: Attempt): FlowHold | Promise<FlowHold | QueueRejection> {
  return a.deps.flow.hold(
    a.candidate.target.provider.id,
    a.candidate.connection,
    a.attemptMs,
    a.cancel,
    () => a.cancel.abort(new ExecutionExpiredError()),
  );
}

/** `waitedSince`: when the hold began, if it had to wait at all. */
function holding(
  a: Attempt,
  held: FlowHold | QueueRejection,
  waitedSince: number | null,
): Decision | Promise<Decision> {
  const cacheKey = a.dispatch.pinned === a.candidate.connection.id;
  if (!(held instanceof QueueRejection)) {
    a.handle.holds(held);
    // A wait worth a word (not a team-mode permit's round trip) on the session's cache key.
    const waited = waitedSince === null ? 0 : a.ctx.now() - waitedSince;
    if (cacheKey && waited >= CACHE_WAIT_POLL_MS) {
      a.ctx.steps.push(
        `waited ${waited} ms for ${a.candidate.connection.id}, the connection holding the session's cache (busy)`,
      );
    }
    return CONTINUE;
  }
  // A client that left while queued is not a refusal worth reporting.
  if (a.ctx.clientGone) return CONTINUE;
  const waitMs =
    cacheKey && held.code === 'RATE_LIMIT_QUEUE_FULL' ? (a.deps.cacheWaitMs?.() ?? 0) : 0;
  return waitMs > 0
    ? waitForCacheKey(a, held, waitMs, waitedSince ?? a.ctx.now())
    : refused(a, held);
}

/** How often a session waiting for its busy cache connection looks for a place in its queue. */
const CACHE_WAIT_POLL_MS = 50;

/**
 * Issue 30: the connection holding the session's prompt cache has a full queue. Moving would
 * bill the whole prompt again, so the session waits a short, bounded time
 * (`sessionAffinity.cacheWaitMs`) for a place first, and the decision says which it chose.
 */
async function waitForCacheKey(
  a: Attempt,
  first: QueueRejection,
  waitMs: number,
  since: number,
): Promise<Decision> {
  const { ctx } = a;
  const conn = a.candidate.connection.id;
  const end = Math.min(since + waitMs, a.dispatch.budgetEnd);
  let last = first;
  while (ctx.now() < end && !ctx.clientGone && !a.cancel.signal.aborted) {
    await pause(Math.min(CACHE_WAIT_POLL_MS, end - ctx.now()), a.cancel.signal);
    // Looked at first, so waiting does not count a refusal per look in the queue's numbers.
    if (a.deps.flow.queueFull(a.candidate.target.provider.id, a.candidate.connection)) continue;
    const held = await take(a);
    if (!(held instanceof QueueRejection)) {
      a.handle.holds(held);
      ctx.steps.push(
        `waited ${ctx.now() - since} ms for ${conn}, the connection holding the session's cache (queue full), instead of moving`,
      );
      return CONTINUE;
    }
    last = held;
    if (held.code !== 'RATE_LIMIT_QUEUE_FULL') break;
  }
  if (ctx.clientGone) return CONTINUE;
  ctx.steps.push(`${conn} still busy after ${ctx.now() - since} ms (queue full): moved`);
  return refused(a, last);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal.addEventListener('abort', done, { once: true });
  });
}

function refused(a: Attempt, held: QueueRejection): Decision {
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
