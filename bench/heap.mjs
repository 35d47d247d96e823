#!/usr/bin/env node
// `node bench/heap.mjs [breakwater|reference] [--body-kb=N]`: where the memory of an open stream
// goes (N: pad the request to about N KB, as agent requests are, to see what holds the body). Starts
// the fake upstream, the load generator and one proxy (Breakwater from the built CLI, or the
// reference) with --heapsnapshot-signal, grows its heap with 1 s of streaming, then takes a heap
// snapshot before and while 1 000 streams are held open after their first chunk, and prints the
// JavaScript heap per stream by constructor. A diagnostic for the RSS-per-stream figure of
// `npm run bench`: RSS counts garbage not yet collected, a snapshot counts only what is live.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIfStale, ROOT, SERVE_OUTPUTS } from '../scripts/build-if-stale.mjs';
import { killAll, sleep, startGenerator, startServer, startUpstream } from './harness.mjs';

const which = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'breakwater';
const bodyKb = Number(process.argv.find((a) => a.startsWith('--body-kb='))?.slice(10) ?? 0);
const STREAMS = 1000;
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
    const upstream = await startUpstream();
    const gen = startGenerator();

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
        ? await startServer(
            'reference',
            process.execPath,
            [flag, join(ROOT, 'bench', 'reference.mjs'), upstream.origin],
            /reference listening on (\d+)/,
            { cwd: dir },
          )
        : await startServer(
            'breakwater',
            process.execPath,
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
    await upstream.setStep({ text, chunks: 100 });
    await gen.ask('throughput', job({ concurrency: 64, warmupMs: 0, durationMs: 1000 }));
    await upstream.setStep({ text, chunks: 100, stallAfterChunks: 1 });
    await sleep(500);
    const before = sizes(await snapshot());
    const held = await gen.holdOpenStreams(job({ count: STREAMS, timeoutMs: 15_000 }));
    const opened = held.result;
    const during = sizes(await snapshot());
    await held.release();

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
    gen.child.disconnect();
    upstream.child.disconnect();
  } finally {
    killAll();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`heap bench failed: ${err.stack ?? err}\n`);
  process.exitCode = 1;
});
