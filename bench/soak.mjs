#!/usr/bin/env node
// Soak: `npm run soak -- --minutes N [--concurrency C] [--sessions one|per-request]`. Runs `breakwater serve` (the built CLI)
// against the fake upstream and holds a mixed load on it: streamed and whole Chat Completions,
// Anthropic Messages translated to a Chat provider, with a 3-second burst of 503s from the first
// of two upstreams every minute (the combo fails over to the second). Prints one row per minute: requests, error rate, p50/p99 latency, the gateway's RSS
// and heap; then the totals. Exits 1 if a request broke (no answer and no parseable error).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { buildIfStale, ROOT, SERVE_OUTPUTS } from '../scripts/build-if-stale.mjs';
import { killAll, sleep, startServer, startUpstream } from './harness.mjs';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '16' },
    // per-request: each request names a new session (Chat `prompt_cache_key`, Anthropic
    // `metadata.user_id`), as a client opening a conversation per request would (issue 35).
    sessions: { type: 'string', default: 'one' },
  },
});
const perRequest = values.sessions === 'per-request';
const minutes = Number(values.minutes);
const concurrency = Number(values.concurrency);
if (!(minutes > 0) || !(concurrency > 0) || !['one', 'per-request'].includes(values.sessions)) {
  process.stderr.write(
    'usage: npm run soak -- --minutes N [--concurrency C] [--sessions one|per-request]\n',
  );
  process.exit(2);
}

buildIfStale(SERVE_OUTPUTS);
// Two upstreams: the 503 bursts hit the first only, so the combo fails over to the second.
const HEALTHY = { chunks: 8, chunkDelayMs: 5 };
const upstream = await startUpstream();
const backup = await startUpstream();
await upstream.setStep(HEALTHY);
await backup.setStep(HEALTHY);
const dir = mkdtempSync(join(tmpdir(), 'bw-soak-'));
const config = join(dir, 'breakwater.json');
const provider = (id, origin) => ({
  id,
  format: 'openai',
  baseUrl: `${origin}/v1`,
  authClass: 'api_key',
  connections: [{ id: `${id}-1`, apiKey: `sk-soak-${id}-0123456789` }],
  models: ['gpt-soak'],
});
writeFileSync(
  config,
  JSON.stringify({
    providers: [provider('a', upstream.origin), provider('b', backup.origin)],
    combos: [{ name: 'coder', strategy: 'priority', targets: ['a/gpt-soak', 'b/gpt-soak'] }],
  }),
);
process.env.BREAKWATER_ADMIN_TOKEN = 'soak-admin-token-0123456789abcdef';
const gateway = await startServer(
  'gateway',
  process.execPath,
  [
    '--import',
    join(ROOT, 'bench', 'soak-probe.mjs'),
    join(ROOT, 'out/main/cli.js'),
    'serve',
    '--config',
    config,
    '--port',
    '0',
    '--data-dir',
    join(dir, 'data'),
  ],
  /listening on http:\/\/127\.0\.0\.1:(\d+)/,
);
let memory = { rss: 0, heapUsed: 0, heapTotal: 0, external: 0 };
let probeLine = '';
gateway.child.stderr.on('data', (d) => {
  probeLine += d;
  const lines = probeLine.split('\n');
  probeLine = lines.pop() ?? '';
  for (const l of lines) if (l.startsWith('soak-probe ')) memory = JSON.parse(l.slice(11));
});

const agent = new Agent({ connections: concurrency * 2, keepAliveTimeout: 4000 });
const KINDS = [
  { path: '/v1/chat/completions', stream: true, anthropic: false },
  { path: '/v1/chat/completions', stream: true, anthropic: false },
  { path: '/v1/chat/completions', stream: false, anthropic: false },
  { path: '/v1/messages', stream: true, anthropic: true },
];

/** One request; 'ok', 'error' (a parseable error) or 'broken'. */
async function one(i) {
  const kind = KINDS[i % KINDS.length];
  const session = perRequest ? `sess-${i}` : 'sess-soak';
  const body = kind.anthropic
    ? {
        model: 'coder',
        max_tokens: 64,
        stream: kind.stream,
        metadata: { user_id: `user_soak_account__session_${session}` },
        messages: [{ role: 'user', content: 'hi' }],
      }
    : {
        model: 'coder',
        stream: kind.stream,
        prompt_cache_key: session,
        messages: [{ role: 'user', content: 'hi' }],
      };
  const t0 = performance.now();
  try {
    const res = await request(`${gateway.origin}${kind.path}`, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        'content-type': 'application/json',
        ...(kind.anthropic ? { 'anthropic-version': '2023-06-01' } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.body.text();
    const ms = performance.now() - t0;
    if (res.statusCode >= 400) {
      try {
        JSON.parse(text);
        return { outcome: 'error', ms };
      } catch {
        return { outcome: 'broken', ms };
      }
    }
    const streamError = kind.anthropic
      ? text.includes('event: error')
      : text.includes('data: {"error"');
    const ended =
      !kind.stream || (kind.anthropic ? text.includes('message_stop') : text.includes('[DONE]'));
    return { outcome: streamError ? 'error' : ended ? 'ok' : 'broken', ms };
  } catch {
    return { outcome: 'broken', ms: performance.now() - t0 };
  }
}

const rows = [];
let current = null;
const newMinute = (m) => ({ minute: m, requests: 0, errors: 0, broken: 0, latencies: [] });
const pct = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
const mb = (b) => (b / 1048576).toFixed(1);

const started = Date.now();
const end = started + minutes * 60_000;
current = newMinute(1);
let seq = 0;
const workers = Array.from({ length: concurrency }, async () => {
  while (Date.now() < end) {
    const r = await one(seq++);
    current.requests++;
    if (r.outcome === 'error') current.errors++;
    if (r.outcome === 'broken') current.broken++;
    current.latencies.push(r.ms);
  }
});
const faults = (async () => {
  for (let m = 0; Date.now() < end; m++) {
    await sleep(Math.max(0, started + m * 60_000 + 30_000 - Date.now()));
    if (Date.now() >= end) break;
    await upstream.setStep({ status: 503 });
    await sleep(3000);
    await upstream.setStep(HEALTHY);
  }
})();

process.stdout.write(
  `soak: ${minutes} min, ${concurrency} concurrent, ${perRequest ? 'a new session per request' : 'one session'}, gateway ${gateway.origin}\n\n`,
);
process.stdout.write(
  '| minute | requests | errors | broken | p50 ms | p99 ms | RSS MB | heap MB | heap total MB | external MB |\n',
);
process.stdout.write(
  '| ------ | -------- | ------ | ------ | ------ | ------ | ------ | ------- | ------------- | ----------- |\n',
);
const report = (row) => {
  const sorted = row.latencies.sort((a, b) => a - b);
  const line = `| ${row.minute} | ${row.requests} | ${((100 * row.errors) / Math.max(1, row.requests)).toFixed(2)}% | ${row.broken} | ${pct(sorted, 50).toFixed(1)} | ${pct(sorted, 99).toFixed(1)} | ${mb(memory.rss)} | ${mb(memory.heapUsed)} | ${mb(memory.heapTotal)} | ${mb(memory.external)} |`;
  process.stdout.write(`${line}\n`);
  rows.push({ ...row, latencies: undefined, rss: memory.rss, heapUsed: memory.heapUsed });
};
for (let m = 1; m <= minutes; m++) {
  await sleep(Math.max(0, started + m * 60_000 - Date.now()));
  const done = current;
  current = newMinute(m + 1);
  report(done);
}
await Promise.all([...workers, faults]);
const total = rows.reduce(
  (t, r) => ({
    requests: t.requests + r.requests,
    errors: t.errors + r.errors,
    broken: t.broken + r.broken,
  }),
  { requests: current.requests, errors: current.errors, broken: current.broken },
);
process.stdout.write(
  `\ntotal: ${total.requests} requests, ${total.errors} parseable errors, ${total.broken} broken; RSS ${mb(rows[0]?.rss ?? 0)} → ${mb(memory.rss)} MB, heap ${mb(rows[0]?.heapUsed ?? 0)} → ${mb(memory.heapUsed)} MB\n`,
);
await agent.close();
killAll();
rmSync(dir, { recursive: true, force: true });
process.exit(total.broken > 0 ? 1 : 0);
