#!/usr/bin/env node
// `node bench/heap.mjs [breakwater|reference] [--body-kb=N]`: where the memory of an open stream
// goes (N: pad the request to about N KB, as agent requests are, to see what holds the body). Starts
// the fake upstream, the load generator and one proxy (Breakwater from the built CLI, or the
// reference) with --heapsnapshot-signal, grows its heap with 1 s of streaming, then takes a heap
// snapshot before and while 1 000 streams are held open after their first chunk, and prints the
// JavaScript heap per stream by constructor. A diagnostic for the RSS-per-stream figure of
// `npm run bench`: RSS counts garbage not yet collected, a snapshot counts only what is live.
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIfStale, ROOT, SERVE_OUTPUTS } from '../scripts/build-if-stale.mjs';

const which = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'breakwater';
const bodyKb = Number(process.argv.find((a) => a.startsWith('--body-kb='))?.slice(10) ?? 0);
const STREAMS = 1000;
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function start(args, pattern, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'pipe', 'pipe', ...(opts.ipc ? ['ipc'] : [])],
      cwd: opts.cwd ?? ROOT,
    });
    children.add(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = pattern.exec(out);
      if (!m) return;
      child.stdout.removeAllListeners('data');
      child.stdout.resume();
      resolve({ child, origin: `http://127.0.0.1:${m[1]}` });
    });
    child.stderr.on('data', (d) => (err += d));
    child.once('exit', (code) => reject(new Error(`exited (${code}) before listening: ${err}`)));
  });
}

/** Self size per constructor (strings, code and internal arrays grouped by kind). */
function sizes(file) {
  const s = JSON.parse(readFileSync(file, 'utf8'));
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const [ti, ni, si] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const bySize = new Map();
  let total = 0;
  for (let i = 0; i < s.nodes.length; i += fields.length) {
    const type = types[s.nodes[i + ti]];
    const name = type.includes('string') ? '(string)' : s.strings[s.nodes[i + ni]].slice(0, 50);
    const key = `${type}: ${name}`;
    const e = bySize.get(key) ?? { bytes: 0, count: 0 };
    e.bytes += s.nodes[i + si];
    e.count++;
    bySize.set(key, e);
    total += s.nodes[i + si];
  }
  return { bySize, total };
}

async function main() {
  buildIfStale(SERVE_OUTPUTS);
  const scratch = mkdtempSync(join(tmpdir(), 'breakwater-heap-'));
  try {
    const upstream = await start(
      ['--import', 'tsx', join(ROOT, 'bench', 'upstream.ts')],
      /upstream listening on (\d+)/,
      { ipc: true },
    );
    const setStep = (step) =>
      new Promise((r) => {
        upstream.child.once('message', r);
        upstream.child.send({ step });
      });
    const gen = fork(join(ROOT, 'bench', 'load.mjs'), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.add(gen);
    let seq = 0;
    const waiting = new Map();
    gen.on('message', (m) => {
      const w = waiting.get(m.id);
      if (!w) return;
      waiting.delete(m.id);
      if (m.error) w.reject(new Error(m.error));
      else w.resolve(m.result);
    });
    const ask = (cmd, job, id = `${++seq}`) =>
      new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        gen.send({ id, cmd, job });
      });

    const config = join(scratch, 'breakwater.json');
    writeFileSync(
      config,
      JSON.stringify({
        providers: [
          {
            id: 'openai',
            format: 'openai',
            baseUrl: `${upstream.origin}/v1`,
            authClass: 'api_key',
            connections: [{ id: 'openai-1', apiKey: 'sk-bench-openai-1-0123456789' }],
            models: ['gpt-4o-mini', 'gpt-4.1'],
          },
        ],
        combos: [
          {
            name: 'coder',
            strategy: 'priority',
            targets: ['openai/gpt-4o-mini', 'openai/gpt-4.1'],
          },
        ],
        resilience: { modelLockout: { enabled: true } },
      }),
    );
    // The proxy writes its snapshots into its working directory.
    const dir = mkdtempSync(join(scratch, 'snapshots-'));
    const flag = '--heapsnapshot-signal=SIGUSR2';
    const proxy =
      which === 'reference'
        ? await start(
            [flag, join(ROOT, 'bench', 'reference.mjs'), upstream.origin],
            /reference listening on (\d+)/,
            { cwd: dir },
          )
        : await start(
            [
              flag,
              join(ROOT, 'out', 'main', 'cli.js'),
              'serve',
              '--config',
              config,
              '--port',
              '0',
              '--data-dir',
              join(scratch, 'data'),
            ],
            /listening on http:\/\/127\.0\.0\.1:(\d+)/,
            { cwd: dir },
          );
    const words = 'The function reads the configuration once and returns a frozen object. ';
    const job = (extra) => ({
      origin: proxy.origin,
      path: '/v1/chat/completions',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: which === 'reference' ? 'gpt-4o-mini' : 'coder',
        messages: [
          { role: 'system', content: words.repeat(20 + Math.ceil((bodyKb * 1024) / words.length)) },
          { role: 'user', content: 'Add a "timeout" field.' },
        ],
        stream: true,
      }),
      ...extra,
    });
    /** Signals the proxy and waits until its snapshot file is complete. */
    const snapshot = async () => {
      const before = new Set(readdirSync(dir));
      proxy.child.kill('SIGUSR2');
      const deadline = Date.now() + 120_000;
      for (;;) {
        if (Date.now() > deadline) throw new Error('no heap snapshot after 2 minutes');
        await sleep(300);
        const name = readdirSync(dir).find((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
        if (!name) continue;
        const file = join(dir, name);
        let last = -1;
        for (;;) {
          await sleep(700);
          const size = statSync(file).size;
          if (size === last && readFileSync(file, 'utf8').trimEnd().endsWith('}')) return file;
          last = size;
        }
      }
    };

    const text = Array.from({ length: 100 }, (_, i) => `w${i % 10} `).join('');
    await setStep({ text, chunks: 100 });
    await ask('throughput', job({ concurrency: 64, warmupMs: 0, durationMs: 1000 }));
    await setStep({ text, chunks: 100, stallAfterChunks: 1 });
    await sleep(500);
    const before = sizes(await snapshot());
    const id = `${++seq}`;
    const released = new Promise((resolve, reject) =>
      waiting.set(`${id}:released`, { resolve, reject }),
    );
    const opened = await ask('openStreams', job({ count: STREAMS, timeoutMs: 15_000 }), id);
    const during = sizes(await snapshot());
    gen.send({ cmd: 'release' });
    await released;

    const n = opened.opened;
    process.stdout.write(
      `${which}: ${n} streams open, ${((during.total - before.total) / n / 1024).toFixed(1)} KB of JavaScript heap per stream\n\n`,
    );
    const rows = [...new Set([...before.bySize.keys(), ...during.bySize.keys()])]
      .map((key) => {
        const a = before.bySize.get(key) ?? { bytes: 0, count: 0 };
        const b = during.bySize.get(key) ?? { bytes: 0, count: 0 };
        return { key, bytes: (b.bytes - a.bytes) / n, count: (b.count - a.count) / n };
      })
      .sort((x, y) => y.bytes - x.bytes)
      .slice(0, 30);
    for (const r of rows) {
      process.stdout.write(
        `${r.bytes.toFixed(0).padStart(6)} B ${r.count.toFixed(1).padStart(6)} ×  ${r.key}\n`,
      );
    }
    gen.disconnect();
    upstream.child.disconnect();
  } finally {
    for (const c of children) c.kill('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`heap bench failed: ${err.stack ?? err}\n`);
  process.exitCode = 1;
});
