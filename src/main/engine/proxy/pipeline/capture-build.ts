// A captured call made storable once its request ended: the held references turned into text,
// cut at `requestLog.captureMaxBytes` (marked), with every secret redacted. Runs only for a
// request the capture mode keeps.

import type { IncomingHttpHeaders } from 'node:http';
import type { CapturedAttempt, CapturedMessage } from '../../../../shared/contract';
import { redactSecrets } from '../../logger';
import { bytesOf } from '../../wire/body-pieces';
import type { AnswerKeep, HeldAttempt, HeldCapture, StoredCapture } from './capture-held';
import type { RequestContext } from './context';

const REDACTED = '[redacted]';
/** Header names whose value is a credential whatever it looks like. */
const SECRET_HEADER = /auth|api-?key|token|secret|cookie|password/i;
/** Query parameters that carry a key (Gemini's `?key=`). */
const SECRET_QUERY = /([?&](?:key|api[_-]?key|token|access_token)=)[^&#]*/gi;
const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding']);
const EVENT_END = /\r?\n\r?\n/;

/** Whether the request's outcome makes it kept: every one with `all`, a failed one with `failed`. */
export function keeps(ctx: RequestContext, held: HeldCapture): boolean {
  if (held.mode === 'all') return true;
  const status = ctx.status || 500;
  return ctx.errorClass !== null || status < 200 || status >= 400;
}

export function buildCapture(ctx: RequestContext, held: HeldCapture): StoredCapture {
  const secrets = secretsOf(ctx);
  const text = (body: Buffer | null) => bodyText(body, held.maxBytes, secrets);
  const now = ctx.now();
  return {
    client:
      held.client === null
        ? null
        : {
            method: ctx.req.method ?? 'POST',
            path: redactUrl(ctx.req.url ?? ctx.endpoint.path, secrets),
            headers: redactHeaders(ctx.req.headers, secrets, HOP_BY_HOP),
            ...text(held.client),
          },
    attempts: held.attempts.map((a) => attemptOf(a, held.maxBytes, secrets, now)),
  };
}

function attemptOf(
  a: HeldAttempt,
  maxBytes: number,
  secrets: readonly string[],
  now: number,
): CapturedAttempt {
  const answered = a.responseHeaders !== null;
  return {
    target: a.target,
    connection: a.connection,
    status: a.status,
    startedAt: a.startedAt,
    durationMs: (a.endedAt ?? now) - a.startedAt,
    error: a.error === null ? null : redactSecrets(a.error, secrets),
    request: {
      method: 'POST',
      url: redactUrl(`${a.baseUrl.replace(/\/+$/, '')}${a.path}`, secrets),
      headers: a.headers ? redactHeaders(a.headers, secrets) : {},
      ...bodyText(a.body && bytesOf(a.body), maxBytes, secrets),
    },
    response: answered
      ? {
          status: a.status,
          headers: redactHeaders(a.responseHeaders!, secrets),
          ...(a.kept
            ? keptText(a.kept, a.responseHeaders!, maxBytes, secrets)
            : bodyText(a.responseBody, maxBytes, secrets)),
        }
      : null,
  };
}

/** The connections' keys and the gateway key the client presented, wherever they appear. */
function secretsOf(ctx: RequestContext): string[] {
  const out = ctx.catalog.secrets().filter((s) => s.length >= 4);
  const h = ctx.req.headers;
  const auth = String(h.authorization ?? '').replace(/^\s*bearer\s+/i, '');
  for (const v of [auth, h['x-api-key'], h['x-goog-api-key']]) {
    const s = Array.isArray(v) ? v[0] : v;
    if (s && s.trim().length >= 4) out.push(s.trim());
  }
  const key = /[?&]key=([^&#]+)/.exec(ctx.search)?.[1];
  if (key && key.length >= 4) out.push(decodeURIComponent(key));
  // Longest first: a key that contains another is redacted whole.
  return out.sort((a, b) => b.length - a.length);
}

function redactHeaders(
  headers: IncomingHttpHeaders | Readonly<Record<string, string>>,
  secrets: readonly string[],
  skip?: ReadonlySet<string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || skip?.has(name.toLowerCase())) continue;
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    out[name] = SECRET_HEADER.test(name) ? REDACTED : redactSecrets(text, secrets);
  }
  return out;
}

function redactUrl(url: string, secrets: readonly string[]): string {
  return redactSecrets(url.replace(SECRET_QUERY, `$1${REDACTED}`), secrets);
}

/**
 * A body as text, redacted, cut after `maxBytes`: the redaction reads a little past the cut, so
 * a secret the cut would split is still found.
 */
function bodyText(
  body: Buffer | null,
  maxBytes: number,
  secrets: readonly string[],
): Omit<CapturedMessage, 'headers'> {
  if (body === null) return { body: null, truncated: false };
  const margin = secrets.reduce((m, s) => Math.max(m, Buffer.byteLength(s)), 0);
  const window = body.subarray(0, maxBytes + margin).toString('utf8');
  const redacted = redactSecrets(window, secrets);
  if (body.length <= maxBytes) return { body: redacted, truncated: false };
  const cut = Buffer.from(redacted).subarray(0, maxBytes).toString('utf8');
  return {
    body: `${cut}\n…[cut by Breakwater: ${body.length - maxBytes} more bytes not kept]`,
    truncated: true,
  };
}

/** What the relay kept of an answer: all of it when it fitted, else its first and last events. */
function keptText(
  kept: AnswerKeep,
  headers: IncomingHttpHeaders,
  maxBytes: number,
  secrets: readonly string[],
): Omit<CapturedMessage, 'headers'> {
  const head = Buffer.concat(kept.head);
  if (kept.total === kept.headBytes) return bodyText(head, maxBytes, secrets);
  if (!String(headers['content-type'] ?? '').includes('text/event-stream')) {
    const shown = bodyText(head, maxBytes, secrets);
    return {
      body: `${shown.body ?? ''}\n…[cut by Breakwater: ${kept.total - head.length} more bytes not kept]`,
      truncated: true,
    };
  }
  const first = head.toString('utf8').split(EVENT_END)[0] ?? '';
  const tail = Buffer.concat([kept.beforeLast ?? Buffer.alloc(0), kept.last ?? Buffer.alloc(0)])
    .toString('utf8')
    .split(EVENT_END)
    .filter((e) => e.trim() !== '');
  const last = tail[tail.length - 1] ?? '';
  const omitted = kept.total - Buffer.byteLength(first) - Buffer.byteLength(last);
  const text = `${first}\n\n: …[${Math.max(0, omitted)} bytes of the stream not kept]\n\n${last}\n\n`;
  return { body: bodyText(Buffer.from(text), maxBytes, secrets).body, truncated: true };
}
