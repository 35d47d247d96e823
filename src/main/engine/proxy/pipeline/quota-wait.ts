import type { ServerResponse } from 'node:http';
import {
  decideQuotaWait,
  type Obstacle,
  type QuotaRelease,
  type QuotaWaitDecision,
  waitedFor,
} from '../../resilience/quota-wait';
import type { Candidate } from '../../routing/resolve';
import { headerValue } from '../../wire/header-value';
import { keepAliveEvent } from '../../wire/keep-alive';
import type { RequestContext } from './context';
import type { PipelineDeps } from './deps';

/** Candidates passed over for the request's own shape: they never serve it, whatever the wait. */
const MISFITS: ReadonlySet<string> = new Set(['untranslatable', 'tool_limit', 'context_window']);

const FREE: Obstacle = Object.freeze({
  reason: 'open',
  retryAfterMs: null,
  errorType: null,
  subject: '',
});

/**
 * Whether to wait for a quota reset now (issue 29): what keeps each candidate from serving, read
 * fresh from the resilience state, into the pure decision. Runs only once nothing served.
 */
export function quotaWaitDecision(
  ctx: RequestContext,
  deps: PipelineDeps,
  candidates: readonly Candidate[],
  skipped: ReadonlyMap<string, string>,
  waitingSince: number | null,
): QuotaWaitDecision {
  const maxWaitMs = deps.quotaWait?.().maxWaitMs ?? 0;
  if (maxWaitMs <= 0 || !deps.quotaWaits) return { kind: 'none' };
  const now = ctx.now();
  const obstacles: Obstacle[] = [];
  for (const c of candidates) {
    const skip = skipped.get(`${c.target.label}@${c.connection.id}`);
    if (skip !== undefined && MISFITS.has(skip)) continue;
    const ex = deps.resilience.exclusion(c, now);
    if (!ex) obstacles.push(FREE);
    else {
      const wide = ex.reason === 'circuit_open' || ex.reason === 'provider_cooldown';
      obstacles.push({
        reason: ex.reason,
        retryAfterMs: ex.retryAfterMs,
        errorType: ex.errorType ?? null,
        subject: wide ? c.target.provider.id : c.connection.id,
      });
    }
  }
  return decideQuotaWait({ maxWaitMs, obstacles, waitingSince, now });
}

/** A wait the dispatch makes: how long it lasted, or null when the client left meanwhile. */
export interface QuotaWaited {
  waitedMs: number;
  release: QuotaRelease;
  arrival: number;
}

/**
 * Waits in the room for the obstacle's end and a place in the trickle. A streaming client gets
 * the head at once and a keep-alive in its format every `quotaWait.keepAliveMs`; a non-streaming
 * one is simply held. A client that leaves is dropped at once.
 */
export async function waitForQuota(
  ctx: RequestContext,
  deps: PipelineDeps,
  d: Extract<QuotaWaitDecision, { kind: 'wait' }>,
  arrival: number | undefined,
): Promise<QuotaWaited | null> {
  const room = deps.quotaWaits!;
  const started = ctx.now();
  const o = d.obstacle;
  const reason = o.reason === 'unavailable' ? (o.errorType ?? o.reason) : o.reason;
  const waiting = room.enter(
    {
      model: ctx.model,
      key: ctx.key?.name ?? null,
      since: started,
      until: started + d.waitMs,
      reason,
      subject: o.subject,
    },
    arrival,
  );
  deps.log.info(
    `proxy: "${ctx.model}" waits ${Math.ceil(d.waitMs / 1000)} s for ${waitedFor(o)} (${reason})`,
  );
  const res = ctx.res;
  const gone = () => waiting.leave();
  res.once('close', gone);
  let keepAlive: NodeJS.Timeout | null = null;
  if (ctx.stream) {
    openHead(ctx, res, o);
    const ping = keepAliveEvent(ctx.endpoint.format);
    res.write(ping);
    keepAlive = setInterval(() => res.write(ping), deps.quotaWait!().keepAliveMs);
  }
  const release = await waiting.released;
  res.off('close', gone);
  if (keepAlive) clearInterval(keepAlive);
  if (release === null || ctx.clientGone) {
    release?.end();
    return null;
  }
  const waitedMs = ctx.now() - started;
  ctx.steps.push(`waited ${Math.round(waitedMs / 1000)} s for ${waitedFor(o)}`);
  deps.log.info(
    `proxy: "${ctx.model}" waited ${Math.round(waitedMs / 1000)} s for ${waitedFor(o)}`,
  );
  return { waitedMs, release, arrival: waiting.arrival };
}

/**
 * The head of a waiting stream leaves at once, so the client sees life; what the dispatch writes
 * later (the upstream's stream, or an error event) follows it in the same stream.
 */
function openHead(ctx: RequestContext, res: ServerResponse, o: Obstacle): void {
  if (ctx.heldOpen) return;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    'x-breakwater-decision': headerValue([...ctx.steps, `waiting for ${waitedFor(o)}`].join('; ')),
  });
  res.flushHeaders();
  // The relay and the error answers write a head of their own; this one is already out.
  res.writeHead = (() => res) as ServerResponse['writeHead'];
  ctx.heldOpen = true;
}
