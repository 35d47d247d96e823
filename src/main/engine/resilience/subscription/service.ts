import type { request } from 'undici';
import type { CatalogConnection } from '../../config/catalog';
import type { Logger } from '../../logger';
import type { Candidate } from '../../routing/resolve';
import type { SubscriptionRepo, SubscriptionRow } from '../../store';
import { readBounded } from '../../upstream/attempt';
import { credentialHeaders } from '../../upstream/headers';
import type { UpstreamResponse } from '../../upstream/pools';
import { UpstreamBody } from '../../upstream/upstream-body';
import { DeferredFlush } from '../deferred-flush';
import {
  currentLane,
  decideLane,
  IDLE,
  isUsageLimit,
  type LaneChange,
  type LaneDecision,
  type LaneState,
  laneAccepted,
  readUnified,
  restoreLane,
  SLOW_HEADER,
  SLOW_HEADER_VALUE,
  type UnifiedSignal,
} from './lane';
import {
  canTryLimitReset,
  currentLimitReset,
  failedLimitReset,
  LIMIT_RESET,
  type LimitResetState,
  READY,
  readResetResult,
  readUsage,
  restoreLimitReset,
} from './limit-reset';

export interface SubscriptionDeps {
  repo: SubscriptionRepo;
  log: Logger;
  now(): number;
  /** One draw in [0, 1) for the jitter of lane waits (tests pass a fixed one). */
  random(): number;
  /** `subscription.anthropicApiBase`, read at each limit reset. */
  apiBase(): string;
  /** How often dirty state is written to SQLite (never on the request path). */
  flushIntervalMs?: number;
  /** The HTTP client of the two limit-reset calls (undici `request`; swappable in tests). */
  http?: typeof request;
}

/** Sends one upstream request with these extra headers (the pipeline's own call). */
export type SendUpstream = (extra: Record<string, string>) => Promise<UpstreamResponse>;

interface ConnectionState {
  lane: LaneState;
  reset: LimitResetState;
}

const ERROR_BODY_LIMIT = 64 * 1024;
const OAUTH_BETA = 'oauth-2025-04-20';

/**
 * Anthropic subscription accounts (RESILIENCE.md §2): holds each connection's low-priority lane
 * and limit-reset state, makes the two limit-reset calls, and wraps the pipeline's upstream call
 * so a 5-hour usage limit 429 is answered on the same connection before the normal
 * classification and cooldown see it. The decisions are the pure `decideLane` and `readUsage` /
 * `readResetResult`; this class only applies them, logs each change once, and persists in
 * batches.
 */
export class SubscriptionService {
  private readonly states = new Map<string, ConnectionState>();
  private readonly dirty = new Map<string, SubscriptionRow | null>();
  private readonly flusher: DeferredFlush;

  constructor(private readonly deps: SubscriptionDeps) {
    this.flusher = new DeferredFlush(deps.flushIntervalMs ?? 250, () => this.flush());
    for (const [connection, row] of deps.repo.load()) {
      this.states.set(connection, {
        lane: restoreLane(row.lane),
        reset: restoreLimitReset(row.limitReset),
      });
    }
  }

  /** Whether `send` does anything for this candidate (else call the upstream directly). */
  applies(c: Candidate): boolean {
    const o = c.connection.options;
    return (
      c.target.provider.format === 'anthropic' &&
      (o?.lowPriorityMode === true || o?.autoLimitReset === true)
    );
  }

  /** The gateway's own headers for a request of this connection: the slow header while the lane is accepted. */
  headersFor(c: Candidate, now: number): Record<string, string> {
    if (c.target.provider.format !== 'anthropic' || c.connection.options?.lowPriorityMode !== true)
      return {};
    return laneAccepted(this.lane(c.connection, now), now)
      ? { [SLOW_HEADER]: SLOW_HEADER_VALUE }
      : {};
  }

  /**
   * One upstream attempt through the lane. Returns the response the pipeline should go on with:
   * a success, or an error it classifies and cools as usual (its body replayed when it was read
   * here). A 5-hour limit 429 is retried on the same connection after a limit reset or with the
   * slow header; `slot_busy` and 529 in the lane wait and retry within the bounds of the spec.
   * Waits end early when `signal` aborts (client gone, deadline), rejecting with its reason.
   */
  async send(
    c: Candidate,
    secret: string | null,
    deadlineAt: number,
    signal: AbortSignal,
    sendUpstream: SendUpstream,
  ): Promise<UpstreamResponse> {
    if (!this.applies(c)) return sendUpstream({});
    const conn = c.connection;
    let waitedMs = 0;
    let resetTried = false;
    for (;;) {
      const res = await sendUpstream(this.headersFor(c, this.deps.now()));
      const signalOf = readUnified(res.headers);
      if (res.statusCode !== 429 && res.statusCode !== 529) {
        // Later responses keep or close the lane; nothing to retry.
        this.decide(conn, res.statusCode, signalOf, waitedMs, deadlineAt);
        return res;
      }
      const raw = await readBounded(res.body, ERROR_BODY_LIMIT);
      if (
        !resetTried &&
        conn.options?.autoLimitReset === true &&
        isUsageLimit(res.statusCode, signalOf) &&
        this.lane(conn, this.deps.now()).kind !== 'accepted' &&
        canTryLimitReset(this.state(conn.id).reset, this.deps.now())
      ) {
        // Both on: the limit reset is tried first.
        resetTried = true;
        if (await this.limitReset(c, secret, signal)) continue;
      }
      const d = this.decide(conn, res.statusCode, signalOf, waitedMs, deadlineAt);
      if (d.outcome.kind === 'pass') return replay(res, raw);
      if (d.outcome.afterMs > 0) {
        await sleep(d.outcome.afterMs, signal);
        waitedMs += d.outcome.afterMs;
      }
    }
  }

  private decide(
    conn: CatalogConnection,
    status: number,
    signal: UnifiedSignal,
    waitedMs: number,
    deadlineAt: number,
  ): LaneDecision {
    const now = this.deps.now();
    const state = this.lane(conn, now);
    const d = decideLane(
      {
        state,
        enabled: conn.options?.lowPriorityMode === true,
        status,
        signal,
        waitedMs,
        deadlineAt,
        random: this.deps.random(),
      },
      now,
    );
    if (d.next !== state) this.setLane(conn.id, d.next);
    if (d.change) this.logChange(conn.id, d.change, now);
    if (d.outcome.kind === 'retry' && d.outcome.afterMs > 0) {
      this.deps.log.info(
        `connection ${conn.id}: low-priority lane ${status === 529 ? 'overloaded (529)' : 'slot busy'}; retrying in ${Math.ceil(d.outcome.afterMs / 1000)} s`,
      );
    }
    return d;
  }

  /** GET usage → POST reset when offered. True: the limit is lifted, retry at full speed. */
  private async limitReset(
    c: Candidate,
    secret: string | null,
    signal: AbortSignal,
  ): Promise<boolean> {
    const conn = c.connection;
    const org = conn.options?.organizationUUID;
    if (!org) return false;
    const base = this.deps.apiBase();
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(c.target.provider.authClass === 'oauth' ? { 'anthropic-beta': OAUTH_BETA } : {}),
      ...credentialHeaders(c.target.provider, secret),
    };
    try {
      const usage = await this.call(
        'GET',
        `${base}/api/oauth/usage?at_wall=1&skip_spend=1`,
        headers,
        null,
        signal,
      );
      let step = readUsage(usage, this.deps.now());
      if (step === null)
        throw new Error(`usage answer has no readable ${LIMIT_RESET.program} block`);
      if (step.kind === 'call') {
        const answer = await this.call(
          'POST',
          `${base}/api/organizations/${encodeURIComponent(org)}/reset_rate_limits`,
          { ...headers, 'content-type': 'application/json' },
          JSON.stringify({ program: LIMIT_RESET.program }),
          signal,
        );
        step = readResetResult(answer, this.deps.now());
        if (step === null || step.kind === 'call')
          throw new Error('reset answer has no known result');
      }
      const next = step.next;
      this.setReset(conn.id, next);
      const until =
        next.kind === 'blocked' ? ` (next possible ${new Date(next.until).toISOString()})` : '';
      this.deps.log[step.kind === 'retry' ? 'warn' : 'info'](
        `connection ${conn.id}: 5-hour usage limit; limit reset ${step.result}${until}`,
      );
      return step.kind === 'retry';
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      const next = failedLimitReset(this.deps.now());
      this.setReset(conn.id, next);
      this.deps.log.warn(
        `connection ${conn.id}: limit reset failed (${(err as Error).message}); not tried again before ${new Date(next.until).toISOString()}`,
      );
      return false;
    }
  }

  private async call(
    method: 'GET' | 'POST',
    url: string,
    headers: Record<string, string>,
    body: string | null,
    signal: AbortSignal,
  ): Promise<unknown> {
    // Loaded on first use, like the connection test's (see upstream/pools.ts).
    const http = this.deps.http ?? (await import('undici')).request;
    const res = await http(url, {
      method,
      headers,
      ...(body !== null ? { body } : {}),
      signal: AbortSignal.any([signal, AbortSignal.timeout(LIMIT_RESET.callTimeoutMs)]),
      headersTimeout: LIMIT_RESET.callTimeoutMs,
      bodyTimeout: LIMIT_RESET.callTimeoutMs,
    });
    const text = (await readBounded(res.body, ERROR_BODY_LIMIT)).toString('utf8');
    if (res.statusCode < 200 || res.statusCode >= 300) {
      throw new Error(`${method} ${new URL(url).pathname} answered HTTP ${res.statusCode}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error(`${method} ${new URL(url).pathname} answered with a body that is not JSON`);
    }
  }

  // ---------------------------------------------------------------- state

  private state(connection: string): ConnectionState {
    return this.states.get(connection) ?? { lane: IDLE, reset: READY };
  }

  /** The lane promoted to `now` (an expired lane or refusal ends here, and is logged once). */
  lane(conn: Pick<CatalogConnection, 'id'>, now: number): LaneState {
    const stored = this.state(conn.id).lane;
    const { state, change } = currentLane(stored, now);
    if (state !== stored) {
      this.setLane(conn.id, state);
      if (change) this.logChange(conn.id, change, now);
    }
    return state;
  }

  /** The limit-reset state promoted to `now`. */
  limitResetState(conn: Pick<CatalogConnection, 'id'>, now: number): LimitResetState {
    return currentLimitReset(this.state(conn.id).reset, now);
  }

  private setLane(connection: string, lane: LaneState): void {
    this.put(connection, { ...this.state(connection), lane });
  }

  private setReset(connection: string, reset: LimitResetState): void {
    this.put(connection, { ...this.state(connection), reset });
  }

  private put(connection: string, s: ConnectionState): void {
    if (s.lane.kind === 'idle' && s.reset.kind === 'ready') {
      if (!this.states.delete(connection)) return;
      this.dirty.set(connection, null);
    } else {
      this.states.set(connection, s);
      this.dirty.set(connection, { lane: s.lane, limitReset: s.reset });
    }
    this.scheduleFlush();
  }

  private logChange(connection: string, change: LaneChange, now: number): void {
    const log = this.deps.log;
    switch (change.kind) {
      case 'accepted':
        log.warn(
          `connection ${connection}: 5-hour usage limit; low-priority lane accepted until ${new Date(change.until).toISOString()} (requests carry ${SLOW_HEADER}: ${SLOW_HEADER_VALUE})`,
        );
        return;
      case 'closed': {
        const refused =
          change.refusedUntil !== null
            ? `; not accepted again before ${new Date(change.refusedUntil).toISOString()}`
            : '';
        log[change.reason === 'expired' ? 'info' : 'warn'](
          `connection ${connection}: low-priority lane closed (${change.reason})${refused}`,
        );
        return;
      }
      case 'refusal_ended':
        log.debug(
          `connection ${connection}: low-priority lane may be accepted again (${new Date(now).toISOString()})`,
        );
        return;
    }
  }

  // ---------------------------------------------------------------- persistence

  private scheduleFlush(): void {
    this.flusher.schedule();
  }

  flush(): void {
    if (this.dirty.size === 0) return;
    const batch = new Map(this.dirty);
    this.dirty.clear();
    try {
      this.deps.repo.save(batch, this.deps.now());
    } catch (err) {
      this.deps.log.error(`subscription state not saved: ${String(err)}`);
    }
  }

  close(): void {
    this.flusher.flushNow();
  }
}

/** The response again, with the error body that was read here replayed for the pipeline. */
function replay(res: UpstreamResponse, raw: Buffer): UpstreamResponse {
  return { statusCode: res.statusCode, headers: res.headers, body: UpstreamBody.of([raw]) };
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
