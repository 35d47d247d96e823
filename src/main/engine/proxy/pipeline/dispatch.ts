import type { QuotaRelease } from '../../resilience/quota-wait';
import { noTargetAnswer } from '../../routing/no-target';
import { type Candidate, expandCandidates, routeModel } from '../../routing/resolve';
import type { GatewayError } from '../../wire/client-errors';
import { WATCHDOG_ERROR_CLASS } from '../stream-watch';
import { fail, relayError } from './answer';
import {
  Attempt,
  type AttemptOutcome,
  type AttemptStage,
  type DispatchState,
  type HeldError,
} from './attempt';
import { call } from './call';
import { markClientAbort, type RequestContext, type RequestStage } from './context';
import { afterContinuation, continueStream } from './continue-stream';
import { cooldownWaitMs, type PassedOver } from './cooldown-wait';
import { ANSWERED, type Decision, type Skip } from './decision';
import type { PipelineDeps } from './deps';
import { queueRefusal } from './hold';
import { preferenceOrder } from './order';
import { quotaWaitDecision, waitForQuota } from './quota-wait';
import { relay } from './relay';
import { failOverShape } from './shape-failover';
import { learnCall } from './strategy';
import { brokeOffUpstream } from './stream-break';
import { translateFor } from './translate';

/** Fresh starts after a watchdog trip before any byte reached the client, per request. */
const WATCHDOG_RETRIES = 2;

const SERVED: AttemptOutcome = Object.freeze({ kind: 'served' });
const BROKE: AttemptOutcome = Object.freeze({ kind: 'broke' });

interface Excluded extends PassedOver {
  target: string;
}

/**
 * The dispatch stage: one request's way through its candidates. Rounds over them in order, each
 * one through the attempt stages and the upstream call; failover while nothing has reached the
 * client; a wait for a short rate-limit cooldown between rounds; then the answer, or the error
 * that explains why there is none. A class: its state is one object per request.
 */
export class Dispatch implements DispatchState {
  budgetEnd: number;
  readonly session: string | null;
  attempted = 0;
  queueRejection: DispatchState['queueRejection'] = null;
  untranslatable: GatewayError | null = null;
  tooManyTools: GatewayError | null = null;
  contextFloor: number | null = null;
  private readonly candidates: Candidate[];
  private excluded: Excluded[] = [];
  private fallbackAdded = false;
  private lastNetwork: GatewayError | null = null;
  private held: HeldError | null = null;
  private waits = 0;
  private waited = 0;
  private watchdogRetries = 0;
  /** Quota wait (issue 29): when the first began, the place in line, the trickle's place. */
  private quotaSince: number | null = null;
  private quotaArrival: number | undefined;
  private trickle: QuotaRelease | null = null;
  /** The real earliest reset when the quota wait found it beyond its bound. */
  private resetInMs: number | null = null;
  /** The candidate being tried (its place in `candidates`). */
  private index = 0;
  readonly pinned: string | null;
  /** What kept the request off the pinned connection, when something did. */
  private pinnedObstacle: string | null = null;

  constructor(
    private readonly ctx: RequestContext,
    private readonly deps: PipelineDeps,
    private readonly stages: readonly AttemptStage[],
    session: string | null,
    /** An internal call's share of its client request's budget (multi-call.ts); else the whole. */
    budgetEnd = ctx.started + deps.failoverBudgetMs(),
  ) {
    this.budgetEnd = budgetEnd;
    this.session = session;
    const flow = deps.flow;
    const pinned = session ? flow.pinned(session, ctx.now()) : null;
    this.pinned = pinned;
    this.candidates = preferenceOrder(ctx.candidates, pinned, (c) => flow.saturated(c.connection));
    if (pinned !== null && this.candidates[0]?.connection.id === pinned)
      ctx.steps.push(`session pinned to ${pinned}`);
  }

  async run(): Promise<Decision> {
    const ctx = this.ctx;
    // Rounds: one pass over the candidates each (inline rather than a helper: one suspended
    // async frame less for every stream in flight).
    for (;;) {
      for (
        let i = 0;
        i < this.candidates.length || (!this.fallbackAdded && this.addFallback());
        i++
      ) {
        if (ctx.clientGone) return gone(ctx);
        const now = ctx.now();
        if (now >= this.budgetEnd) {
          ctx.steps.push(`failover budget of ${this.deps.failoverBudgetMs()} ms used up`);
          break;
        }
        this.index = i;
        const result = await this.attempt(
          new Attempt(ctx, this.candidates[i]!, this.deps, this, now),
        );
        if (result === 'done') {
          if (!ctx.seam?.seam.open) return ANSWERED;
          const attempt = (c: Candidate) =>
            this.attempt(new Attempt(ctx, c, this.deps, this, ctx.now()));
          return continueStream(ctx, this.deps, this.candidates, i, attempt);
        }
        // The throughput watchdog cut a stream before any byte reached the client: same again.
        if (result === 'retry') i--;
      }
      if (ctx.clientGone) return ANSWERED;
      const waitMs = this.cooldownWait();
      if (waitMs !== null) {
        ctx.steps.push(`waited ${Math.ceil(waitMs / 1000)} s for a rate-limit cooldown`);
        this.waits++;
        this.waited += waitMs;
        await this.sleepUnlessGone(waitMs);
      } else if (!(await this.quotaWait())) break;
      if (ctx.clientGone) return gone(ctx);
      this.excluded = [];
      this.held = null;
      this.lastNetwork = null;
      this.queueRejection = null;
    }
    if (ctx.clientGone) return gone(ctx);
    // Nothing served: the last upstream error, or why no candidate could be tried.
    if (this.held) relayError(ctx, ctx.res, this.held, ctx.catalog, this.resetInMs);
    else fail(ctx, ctx.res, this.failure());
    return ANSWERED;
  }

  /**
   * Issue 29: when nothing could serve and every obstacle ends by itself soon, waits for the
   * earliest end and says to dispatch again (true); false to answer now (beyond the bound, with
   * the real reset as Retry-After) and when the client left meanwhile.
   */
  private async quotaWait(): Promise<boolean> {
    const { ctx, deps } = this;
    this.trickle?.end();
    this.trickle = null;
    if (this.lastNetwork !== null) return false;
    const skipped = new Map(this.excluded.map((e) => [e.target, e.reason]));
    const d = quotaWaitDecision(ctx, deps, this.candidates, skipped, this.quotaSince);
    if (d.kind === 'refuse') this.resetInMs = d.retryAfterMs;
    if (d.kind !== 'wait') return false;
    this.quotaSince ??= ctx.now();
    const waited = await waitForQuota(ctx, deps, d, this.quotaArrival);
    if (waited === null) return false;
    this.quotaArrival = waited.arrival;
    this.trickle = waited.release;
    this.budgetEnd = Math.max(this.budgetEnd, ctx.now() + deps.failoverBudgetMs());
    return true;
  }

  private failure(): GatewayError {
    if (this.lastNetwork) return this.lastNetwork;
    if (this.queueRejection && this.attempted === 0) return queueRefusal(this.queueRejection);
    if (this.untranslatable && this.excluded.every((e) => e.reason === 'untranslatable')) {
      return this.untranslatable;
    }
    if (this.tooManyTools && this.excluded.every((e) => e.reason === 'tool_limit')) {
      return this.tooManyTools;
    }
    return this.allExcluded();
  }

  /**
   * One candidate: the attempt stages in order (the first that skips passes it over), the call,
   * the relay of its answer; then each stage entered learns the outcome, in reverse order, and
   * the capacity the attempt holds is given back.
   */
  private async attempt(a: Attempt): Promise<'done' | 'next' | 'retry'> {
    const ctx = this.ctx;
    const stages = this.stages;
    let entered = 0;
    try {
      for (; entered < stages.length; entered++) {
        let decision = stages[entered]!.enter(a);
        if (decision instanceof Promise) decision = await decision;
        if (ctx.clientGone) {
          markClientAbort(ctx);
          return 'done';
        }
        if (decision.kind === 'skip') {
          if (this.onPinned(a)) this.pinnedObstacle = `${a.label} skipped (${decision.reason})`;
          this.skip(a.label, decision);
          return 'next';
        }
      }
      const called = await call(a);
      // The upstream answered: the next request waiting for the same reset may go.
      if (this.trickle !== null) {
        this.trickle.end();
        this.trickle = null;
      }
      learnCall(a, called);
      let outcome: AttemptOutcome;
      if (called.kind !== 'answered') outcome = called;
      else {
        this.leftCache(a);
        ctx.steps.push(
          `${a.label} served${this.attempted > 1 ? ` (attempt ${this.attempted})` : ''}`,
        );
        // Earlier attempts' failures stay in the decision; the outcome is this attempt's.
        ctx.errorClass = null;
        ctx.errorMessage = null;
        const relayed = await relay(ctx, ctx.res, called.upstream, a.cancel, a.candidate);
        outcome =
          relayed === 'retry' || ctx.errorClass === WATCHDOG_ERROR_CLASS
            ? { kind: 'tripped', beforeCommit: relayed === 'retry' }
            : brokeOffUpstream(ctx.errorClass)
              ? BROKE
              : SERVED;
      }
      for (let i = entered - 1; i >= 0; i--) stages[i]!.settle?.(a, outcome);
      return this.after(a, outcome);
    } finally {
      a.handle.release();
      ctx.abortAttempt = null;
    }
  }

  /** What the dispatch does next after an attempt's outcome. */
  private after(a: Attempt, outcome: AttemptOutcome): 'done' | 'next' | 'retry' {
    const ctx = this.ctx;
    if (ctx.seam) return afterContinuation(ctx, a, outcome);
    switch (outcome.kind) {
      case 'served':
      case 'broke':
        return 'done';
      case 'gone':
        markClientAbort(ctx);
        return 'done';
      case 'expired': {
        const provider = a.candidate.target.provider.id;
        const connection = a.candidate.connection.id;
        this.deps.flow.queues.countRejection(provider, connection);
        fail(ctx, ctx.res, {
          status: 504,
          kind: 'timeout',
          code: 'RATE_LIMIT_EXECUTION_TIMEOUT',
          message: `the request ran longer than the queue's execution limit for ${provider}/${connection} (rateLimit.executionMaxWaitMs)`,
        });
        return 'done';
      }
      case 'unreachable': {
        const { failure } = outcome;
        ctx.steps.push(`${a.label} failed (${failure.message})`);
        if (this.onPinned(a))
          this.pinnedObstacle = `failover: ${a.label} failed (${failure.message})`;
        ctx.errorClass = failure.errorClass;
        ctx.errorMessage = `${a.candidate.target.label}: ${failure.message}`;
        const timeout = failure.errorClass.startsWith('timeout');
        this.lastNetwork = {
          status: timeout ? 504 : 502,
          kind: timeout ? 'timeout' : 'upstream',
          code: timeout ? 'upstream_timeout' : 'upstream_unreachable',
          message: `no upstream could answer: ${ctx.steps.filter((s) => s.includes('failed')).join('; ')}`,
        };
        this.held = null;
        return 'next';
      }
      case 'refused': {
        const { held, firstEvent } = outcome;
        const { cls, status } = held;
        const restated = cls.restatedBy ? ` restated to ${cls.status}` : '';
        const how = firstEvent
          ? `error event opening a 200 stream, as ${status}`
          : `HTTP ${status}`;
        ctx.steps.push(`${a.label} failed (${how}${restated}, ${cls.reason})`);
        if (this.onPinned(a))
          this.pinnedObstacle = `failover: ${a.label} failed (${how}, ${cls.reason})`;
        this.held = held;
        this.lastNetwork = null;
        const shape = outcome.shape;
        if (shape && failOverShape(a, shape, this.candidates.slice(this.index + 1))) {
          // If nothing serves, the answer is the 400 naming the tool limit, not this one.
          if (shape.kind === 'tool_limit') this.held = null;
          return 'next';
        }
        // Nothing has reached the client yet, so another candidate can still serve it.
        if (cls.failover) return 'next';
        relayError(ctx, ctx.res, held, ctx.catalog);
        return 'done';
      }
      case 'tripped':
        return this.watchdogTripped(a.label, outcome.beforeCommit);
    }
  }

  /**
   * After a watchdog trip: once bytes reached the client the stream already ended with an error
   * event; before that, the request starts again on the same connection, at most
   * WATCHDOG_RETRIES times, and then moves on like after a network failure.
   */
  private watchdogTripped(label: string, beforeCommit: boolean): 'done' | 'next' | 'retry' {
    const ctx = this.ctx;
    ctx.steps.push(`${label} cut by the throughput watchdog (${ctx.errorMessage})`);
    if (!beforeCommit) return 'done';
    ctx.ttfb = null;
    if (this.watchdogRetries < WATCHDOG_RETRIES) {
      this.watchdogRetries++;
      return 'retry';
    }
    this.held = null;
    this.lastNetwork = {
      status: 504,
      kind: 'timeout',
      code: 'upstream_throughput_too_low',
      message: `no upstream produced output fast enough: ${ctx.steps.filter((s) => s.includes('watchdog')).join('; ')}`,
    };
    return 'next';
  }

  /** Whether the attempt is on the session's pinned connection (what kept it off is noted). */
  private onPinned(a: Attempt): boolean {
    return this.pinned !== null && a.candidate.connection.id === this.pinned;
  }

  /**
   * The decision header says when the pick moved a session off the connection holding its
   * prompt cache, and why; the cache watch reads the same (cache-watch.ts).
   */
  private leftCache(a: Attempt): void {
    const pinned = this.pinned;
    if (pinned === null || a.candidate.connection.id === pinned) return;
    const why = this.pinnedObstacle ?? `${pinned} was not among the candidates`;
    this.ctx.cacheMove = { from: pinned, why };
    this.ctx.steps.push(`session left ${pinned}, the connection holding its cache (${why})`);
  }

  private skip(label: string, d: Skip): void {
    this.excluded.push({
      target: label,
      reason: d.reason,
      retryAfterMs: d.retryAfterMs,
      errorType: d.errorType,
    });
    if (d.step !== null) this.ctx.steps.push(`${label} skipped (${d.reason})`);
    this.deps.log.debug(`proxy: ${label} skipped: ${d.detail}`);
  }

  private cooldownWait(): number | null {
    const held = this.held;
    return cooldownWaitMs({
      settings: this.deps.cooldownWait(),
      waits: this.waits,
      waited: this.waited,
      attempted: this.attempted,
      excluded: this.excluded,
      networkFailure: this.lastNetwork !== null,
      held: held ? { status: held.cls.status, reason: held.cls.reason } : null,
      heldRetryAfterMs: () =>
        held
          ? (this.deps.resilience.exclusion(held.candidate, this.ctx.now())?.retryAfterMs ?? null)
          : null,
      now: this.ctx.now(),
      budgetEnd: this.budgetEnd,
    });
  }

  private sleepUnlessGone(ms: number): Promise<void> {
    const res = this.ctx.res;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        res.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      res.once('close', done);
    });
  }

  /** The emergency fallback joins once every other candidate was excluded or failed. */
  private addFallback(): boolean {
    this.fallbackAdded = true;
    const { ctx, deps } = this;
    const ref = deps.emergencyFallback();
    if (!ref) return false;
    const routed = routeModel(ctx.catalog, ref);
    if (routed.expansion === null) {
      deps.log.warn(`proxy: emergency fallback "${ref}" does not resolve; ignored`);
      return false;
    }
    const targets = translateFor(ctx, routed.resolution.targets);
    if ('status' in targets) return false;
    const extra = expandCandidates(targets).candidates.filter(
      (c) =>
        !this.candidates.some(
          (q) => q.target.label === c.target.label && q.connection.id === c.connection.id,
        ) &&
        (deps.leases?.allows(ctx.lease, c, ctx.now()) ?? true),
    );
    if (extra.length === 0) return false;
    ctx.steps.push(`emergency fallback ${ref}`);
    this.candidates.push(...extra);
    return true;
  }

  private allExcluded(): GatewayError {
    const answer = noTargetAnswer(
      this.ctx.model,
      this.excluded,
      this.candidates.length,
      this.attempted,
      this.resetInMs,
    );
    if (answer.status === 503) {
      this.deps.log.warn(
        `proxy: every target of "${this.ctx.model}" is cooling down: ${this.excluded
          .map(
            (e) =>
              `${e.target} ${e.reason}${e.retryAfterMs !== null ? ` ${Math.ceil(e.retryAfterMs / 1000)} s` : ' (needs an operator)'}`,
          )
          .join(', ')}`,
      );
    }
    return answer;
  }
}

function gone(ctx: RequestContext): Decision {
  markClientAbort(ctx);
  return ANSWERED;
}

/** The dispatch stage, running each candidate through `attempt` stages. */
export function dispatch(attempt: readonly AttemptStage[]): RequestStage {
  return {
    name: 'dispatch',
    run: (ctx, deps) => new Dispatch(ctx, deps, attempt, ctx.session).run(),
  };
}
