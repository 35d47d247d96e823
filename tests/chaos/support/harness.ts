import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import type { TestGateway } from '../../support/gateway';

/** `npm run test:chaos` sets CHAOS_LONG=1: every scenario runs longer (see docs/reliability.md). */
export const LONG = process.env.CHAOS_LONG === '1';
export const scale = (short: number, long: number): number => (LONG ? long : short);

export type ClientFormat = 'openai' | 'anthropic';

export interface Ask {
  format: ClientFormat;
  model: string;
  stream: boolean;
}

/** How one client request ended, judged from the client's side. */
export interface Outcome {
  status: number;
  /** A complete answer: JSON with content, or a stream with its terminator. */
  served: boolean;
  /** An error the client can parse in its own API's shape (status, or a stream's error event). */
  wellFormedError: boolean;
  /** The deadline passed, the connection broke, or the answer was neither of the above. */
  broken: string | null;
  ms: number;
  headers: Record<string, string | string[] | undefined>;
  /** The start of an error answer, for a failing test's message. */
  detail?: string;
}

export interface Clients {
  send(ask: Ask, deadlineMs?: number): Promise<Outcome>;
  close(): Promise<void>;
}

/** Client requests through their own connection pool, closed at the end (no stray sockets). */
export function clients(gw: () => TestGateway): Clients {
  const agent = new Agent({ keepAliveTimeout: 1000, connections: 64 });
  return {
    async send(ask, deadlineMs = 15_000) {
      const started = performance.now();
      const anthropic = ask.format === 'anthropic';
      const body = anthropic
        ? {
            model: ask.model,
            max_tokens: 64,
            stream: ask.stream,
            messages: [{ role: 'user', content: 'hi' }],
          }
        : { model: ask.model, stream: ask.stream, messages: [{ role: 'user', content: 'hi' }] };
      try {
        const res = await request(
          `${gw().url}${anthropic ? '/v1/messages' : '/v1/chat/completions'}`,
          {
            method: 'POST',
            dispatcher: agent,
            headers: {
              'content-type': 'application/json',
              ...(anthropic ? { 'anthropic-version': '2023-06-01' } : {}),
            },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(deadlineMs),
          },
        );
        const text = await res.body.text();
        return judge(ask, res.statusCode, res.headers, text, performance.now() - started);
      } catch (err) {
        return {
          status: 0,
          served: false,
          wellFormedError: false,
          broken: (err as Error).name === 'TimeoutError' ? 'deadline passed' : String(err),
          ms: performance.now() - started,
          headers: {},
        };
      }
    },
    close: () => (agent.closed ? Promise.resolve() : agent.close()),
  };
}

function judge(
  ask: Ask,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  ms: number,
): Outcome {
  const out: Outcome = { status, served: false, wellFormedError: false, broken: null, ms, headers };
  const anthropic = ask.format === 'anthropic';
  if (status >= 400 || text.includes('error')) out.detail = text.slice(0, 300);
  if (status >= 400) {
    const json = parse(text) as {
      type?: string;
      error?: { type?: unknown; message?: unknown };
    } | null;
    out.wellFormedError =
      typeof json?.error?.message === 'string' &&
      typeof json.error.type === 'string' &&
      (!anthropic || json.type === 'error');
    if (!out.wellFormedError)
      out.broken = `status ${status} without an error body: ${text.slice(0, 200)}`;
    return out;
  }
  if (String(headers['content-type'] ?? '').includes('text/event-stream')) {
    const streamError = anthropic ? /event: error\n/.test(text) : /data: \{"error"/.test(text);
    const ended = anthropic ? text.includes('event: message_stop') : text.includes('data: [DONE]');
    if (streamError) out.wellFormedError = true;
    else if (ended) out.served = true;
    else out.broken = `stream ended without its terminator or an error event: …${text.slice(-200)}`;
    return out;
  }
  const json = parse(text) as { choices?: unknown[]; content?: unknown[] } | null;
  if (anthropic ? Array.isArray(json?.content) : Array.isArray(json?.choices)) out.served = true;
  else out.broken = `status ${status} with a body that is not an answer: ${text.slice(0, 200)}`;
  return out;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Sends `asks` with at most `concurrency` in flight; outcomes in the order asked. */
export async function load(
  c: Clients,
  asks: Ask[],
  concurrency = 8,
  deadlineMs?: number,
): Promise<Outcome[]> {
  const out: Outcome[] = new Array(asks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, asks.length) }, async () => {
      while (next < asks.length) {
        const i = next++;
        out[i] = await c.send(asks[i]!, deadlineMs);
      }
    }),
  );
  return out;
}

/** Rows in the request log, through a connection of its own (as a restarted engine would see). */
export function logRows(gw: TestGateway): number {
  gw.engine.flushLog();
  const db = new Database(join(gw.dataDir, 'breakwater.db'), { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM request_log').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Open file descriptors of this process (Linux), and its active handles by kind. */
export function resources(): { fds: number; handles: Record<string, number> } {
  const handles: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) handles[kind] = (handles[kind] ?? 0) + 1;
  return { fds: readdirSync('/proc/self/fd').length, handles };
}

/** The outcomes that were not served, for a readable failure. */
export function unserved(outcomes: Outcome[]): string[] {
  return outcomes.filter((o) => !o.served).map((o) => `${o.status} ${o.detail ?? o.broken ?? ''}`);
}
