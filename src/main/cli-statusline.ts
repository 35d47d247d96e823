// `breakwater statusline`: Claude Code's status-line command. It reads the session's JSON on
// stdin and prints one line about the session's turns through the gateway. Claude Code runs it
// after every message and shows whatever it prints, so it answers within 200 ms, prints a short
// line when it cannot say more, and always exits 0. It loads nothing of the engine (that alone
// takes longer than its budget): bin/breakwater.js sends `statusline` straight here.

import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { SessionSummary } from '../shared/contract';
import { defaultDataDir } from './engine/data-dir';

/** The gateway's default address (engine.ts DEFAULT_HOST, DEFAULT_PORT). */
export const STATUSLINE_DEFAULT_URL = 'http://127.0.0.1:4141';
/** All of it, stdin included, within Claude Code's patience. */
const BUDGET_MS = 180;
/** Claude Code's JSON is a few KB; more is not worth reading. */
const MAX_STDIN = 256 * 1024;
const MAX_FIELD = 120;

export const FALLBACK_DOWN = 'breakwater · gateway not reachable';

interface Io {
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
}

/** The line to print; never throws. */
export async function statusline(args: readonly string[], io: Io): Promise<string> {
  const end = Date.now() + BUDGET_MS;
  try {
    const opts = options(args);
    const input = parse(await readStdin(io.stdin, end - 60));
    const url = (opts.url ?? io.env.BREAKWATER_URL ?? STATUSLINE_DEFAULT_URL).replace(/\/+$/, '');
    const token = adminToken(io.env, opts.dataDir);
    const path = input.session
      ? `/api/sessions/${encodeURIComponent(input.session)}`
      : '/api/health';
    const res = await get(`${url}${path}`, token, Math.max(20, end - Date.now()));
    if (res === null) return FALLBACK_DOWN;
    if (res.status === 401) return 'breakwater · admin token refused (set BREAKWATER_ADMIN_TOKEN)';
    if (!input.session || res.status === 404) {
      return `breakwater · ${input.model ? `${input.model} · ` : ''}no turns yet`;
    }
    if (res.status !== 200) return `breakwater · HTTP ${res.status}`;
    return lineOf(JSON.parse(res.body) as SessionSummary);
  } catch {
    return 'breakwater';
  }
}

/** `coder → anthropic/claude-sonnet-4-5 · $0.42 · 12.3k tok · 5h 63 % left` */
export function lineOf(s: SessionSummary): string {
  const route = clean(s.rule ?? s.combo);
  const target = clean(s.target) ?? 'nothing served yet';
  const parts = [route ? `${route} → ${target}` : target];
  parts.push(`$${Number(s.costUsd || 0).toFixed(2)}`);
  parts.push(`${tokens(Number(s.inputTokens || 0) + Number(s.outputTokens || 0))} tok`);
  if (s.quota && Number.isFinite(s.quota.percentLeft)) {
    parts.push(`${clean(s.quota.window)} ${Math.round(s.quota.percentLeft)} % left`);
  }
  return parts.join(' · ');
}

function tokens(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

/** One line, printable, short: the values come from a client's request. */
function clean(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  return value.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, MAX_FIELD);
}

function options(args: readonly string[]): { url?: string; dataDir?: string } {
  const out: { url?: string; dataDir?: string } = {};
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--url' && args[i + 1]) out.url = args[++i];
    else if (args[i] === '--data-dir' && args[i + 1]) out.dataDir = args[++i];
  }
  return out;
}

function readStdin(stdin: NodeJS.ReadableStream, until: number): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      clearTimeout(timer);
      stdin.removeAllListeners('data');
      stdin.pause();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(done, Math.max(10, until - Date.now()));
    stdin.on('data', (c: Buffer | string) => {
      const chunk = typeof c === 'string' ? Buffer.from(c) : c;
      if (size + chunk.length > MAX_STDIN) return done();
      chunks.push(chunk);
      size += chunk.length;
    });
    stdin.once('end', done);
    stdin.once('error', done);
  });
}

function parse(text: string): { session: string | null; model: string | null } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { session: null, model: null };
  }
  const o = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const model = (typeof o.model === 'object' && o.model !== null ? o.model : {}) as Record<
    string,
    unknown
  >;
  const session = typeof o.session_id === 'string' ? o.session_id.trim().slice(0, 256) : '';
  return { session: session || null, model: clean(model.display_name ?? model.id) };
}

function adminToken(env: NodeJS.ProcessEnv, dataDir: string | undefined): string {
  const fromEnv = env.BREAKWATER_ADMIN_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  try {
    return readFileSync(join(dataDir ?? defaultDataDir(env), 'admin-token'), 'utf8').trim();
  } catch {
    return '';
  }
}

/** A GET with a deadline; null when nothing answered in time. */
function get(
  url: string,
  token: string,
  timeoutMs: number,
): Promise<{ status: number; body: string } | null> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (v: { status: number; body: string } | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(v);
    };
    const req = request(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => finish({ status: res.statusCode ?? 0, body }));
      res.on('error', () => finish(null));
    });
    const timer = setTimeout(() => finish(null), timeoutMs);
    req.on('error', () => finish(null));
    req.end();
  });
}

/** The command: prints the line and exits 0, whatever happened. */
export async function runStatusline(args: readonly string[]): Promise<void> {
  const line = await statusline(args, { stdin: process.stdin, env: process.env });
  process.stdout.write(`${line}\n`, () => process.exit(0));
}
