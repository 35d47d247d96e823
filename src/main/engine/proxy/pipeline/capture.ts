// Captured calls (`requestLog.captureBodies`): while a request runs, what each attempt sent and
// got is held by reference only (the buffers and header objects the call made anyway, no copies,
// no text), so a request that is not captured costs a few pointers; `record` turns them into the
// stored capture once the outcome says so (capture-build.ts), or drops them.

import type { BodyTap, UpstreamBody } from '../../upstream/upstream-body';
import type { Attempt } from './attempt';
import { AnswerKeep, type HeldAttempt } from './capture-held';
import type { RequestContext } from './context';

/**
 * The attempt's record, or null when nothing is captured. The request's capture starts with its
 * first attempt, holding the client's body (the same buffer the request holds).
 */
export function holdAttempt(a: Attempt): HeldAttempt | null {
  const ctx = a.ctx;
  let held = ctx.captured;
  if (held === undefined) {
    const settings = a.deps.capture?.();
    if (!settings || settings.mode === 'off') {
      ctx.captured = null;
      return null;
    }
    held = { mode: settings.mode, maxBytes: settings.maxBytes, client: ctx.raw, attempts: [] };
    ctx.captured = held;
  }
  if (held === null) return null;
  const attempt: HeldAttempt = {
    target: a.candidate.target.label,
    connection: a.candidate.connection.id,
    startedAt: a.startedAt,
    endedAt: null,
    baseUrl: a.candidate.target.provider.baseUrl,
    path: '',
    headers: null,
    body: null,
    status: null,
    responseHeaders: null,
    responseBody: null,
    kept: null,
    error: null,
  };
  held.attempts.push(attempt);
  return attempt;
}

/**
 * The tap to set on an answer's body, keeping what the capture needs beside `inner`; the chunks
 * that arrived before it was set are counted in first.
 */
export function keepAnswer(
  ctx: RequestContext,
  held: HeldAttempt,
  inner: BodyTap | null,
  body: UpstreamBody,
): BodyTap {
  const capture = ctx.captured!;
  const keep = new AnswerKeep(capture.mode === 'all' ? capture.maxBytes : 1, inner, () => {
    held.endedAt = ctx.now();
  });
  for (const chunk of body.waiting()) keep.see(chunk);
  held.kept = keep;
  return keep;
}
