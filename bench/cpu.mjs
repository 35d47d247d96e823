#!/usr/bin/env node
// `npm run bench:cpu [-- --baseline=DIR ...] [-- --rounds=N] [-- --quick]`: CPU time of the
// gateway process per proxied request, this build against other builds and the reference
// pass-through, in interleaved rounds. Wall-clock figures on a shared 2-core VM move with the
// neighbours; the CPU a request costs the process barely does, so this is the figure a hot-path
// change is judged on (issue 26). Prints ratios, never fails on a number.
//
// The config is the one issue 26 names: a two-target combo over two connections, a gateway key,
// the request log on (its default), every other feature at its default. Three requests: a short
// chat turn (~3 KB), an agent-sized one (~130 KB, past the size where the body is scanned rather
// than parsed) and the short turn streamed back in 100 chunks (CPU per stream). Each round runs
// every system once per request kind, in turn; a figure is the median of the rounds. Also
// measured per round: c=1 p50 latency (sequential requests).
//
//   --baseline=DIR  a checkout whose out/main/cli.js is built (repeatable)
//   --rounds=N      rounds (default 5; --quick: 2, shorter)
//   --no-reference  leave the reference pass-through out
//   --profile       run the builds with --cpu-prof (bench/profiles/cpu-<label>-*.cpuprofile)
//                   and print each one's cost by stage (bench/stages.mjs)
//   --only=short|agent|stream  one request kind only (for a profile of one)
//   --json          print the raw results as JSON after the table
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { buildIfStale, ROOT, SERVE_OUTPUTS } from '../scripts/build-if-stale.mjs';
import {
  agentBody,
  config,
  KEY,
  median,
  STREAM_TEXT,
  shortBody,
  streamBody,
  words,
} from './cpu-setup.mjs';
import { killAll, processCpuUs, startGenerator, startServer, startUpstream } from './harness.mjs';
import { stageTable } from './stages.mjs';

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const ROUNDS = Number(argv.find((a) => a.startsWith('--rounds='))?.slice(9) ?? (QUICK ? 2 : 5));
const BASELINES = argv.filter((a) => a.startsWith('--baseline=')).map((a) => a.slice(11));
const REFERENCE = !argv.includes('--no-reference');
const PROFILE = argv.includes('--profile');
/**
 * Requests per system per round: with more rounds, shorter ones alternate faster than the
 * shared VM's speed drifts, and the median of per-round ratios cancels more of it.
 */
const REQUESTS_SHORT = ROUNDS > 5 ? 1500 : 4000;
const REQUESTS_AGENT = ROUNDS > 5 ? 400 : 1200;
const REQUESTS_STREAM = ROUNDS > 5 ? 300 : 800;

const log = (m) => process.stderr.write(`[cpu] ${m}\n`);

async function main() {
  buildIfStale(SERVE_OUTPUTS);
  const scratch = mkdtempSync(join(tmpdir(), 'bw-cpu-'));
  const upstream = await startUpstream();
  const replyStep = { text: words.repeat(5) };
  const gen = startGenerator();
  const configFile = join(scratch, 'config.json');
  writeFileSync(configFile, JSON.stringify(config(upstream.origin)));
  const builds = [
    { label: 'this', dir: ROOT },
    ...BASELINES.map((dir) => ({ label: basename(dir), dir })),
  ];
  const systems = [];
  for (const [i, b] of builds.entries()) {
    const s = await startServer(
      b.label,
      process.execPath,
      [
        ...(PROFILE
          ? [
              '--cpu-prof',
              '--cpu-prof-dir',
              join(ROOT, 'bench', 'profiles'),
              '--cpu-prof-name',
              basename(profileOf(b)),
            ]
          : []),
        join(b.dir, 'out/main/cli.js'),
        'serve',
        '--config',
        configFile,
        '--port',
        '0',
        '--data-dir',
        join(scratch, `data-${i}`),
      ],
      /Breakwater listening on http:\/\/127\.0\.0\.1:(\d+)/,
    );
    systems.push({ ...s, model: 'coder', headers: { authorization: `Bearer ${KEY}` } });
  }
  if (REFERENCE) {
    const s = await startServer(
      'reference',
      process.execPath,
      [join(ROOT, 'bench', 'reference.mjs'), upstream.origin],
      /reference listening on (\d+)/,
    );
    systems.push({ ...s, model: 'gpt-4o-mini', headers: {} });
  }
  const kinds = [
    {
      id: 'short',
      name: 'short',
      body: shortBody,
      requests: QUICK ? 1500 : REQUESTS_SHORT,
      warm: 10000,
    },
    {
      id: 'agent',
      name: '130 KB',
      body: agentBody,
      requests: QUICK ? 400 : REQUESTS_AGENT,
      warm: 5000,
    },
    {
      id: 'stream',
      name: 'streamed (100 chunks)',
      body: streamBody,
      step: { text: STREAM_TEXT, chunks: 100 },
      requests: QUICK ? 300 : REQUESTS_STREAM,
      warm: 5000,
    },
  ];
  const only = argv.find((a) => a.startsWith('--only='))?.slice(7);
  if (only) kinds.splice(0, kinds.length, ...kinds.filter((k) => k.id === only));
  log(`request sizes: ${kinds.map((k) => `${k.name} ${k.body('coder').length} B`).join(', ')}`);
  const job = (s, kind, extra) => ({
    origin: s.origin,
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', ...s.headers },
    body: kind.body(s.model),
    ...extra,
  });
  // Warm every system on every kind first, to its steady state: V8 keeps optimising for the
  // first 5 000-8 000 requests of a kind (measured in 1 500-request steps: the short request
  // costs 7x, 4x, 2x, 1.9x its steady CPU in the first four, the 130 KB one and the stream about
  // twice it until the ninth 500-request step), and more code takes longer to compile, so a
  // round inside that window charges a build for its JIT, not for its requests.
  for (const kind of kinds) {
    await upstream.setStep(kind.step ?? replyStep);
    for (const s of systems) {
      await gen.ask(
        'latency',
        job(s, kind, { requests: QUICK ? kind.requests : kind.warm, warmup: 0 }),
      );
    }
  }
  const results = {};
  for (let r = 0; r < ROUNDS; r++) {
    log(`round ${r + 1}/${ROUNDS}`);
    for (const kind of kinds) {
      await upstream.setStep(kind.step ?? replyStep);
      // Rotated each round, so that no system always runs right after the same one.
      for (const s of systems
        .slice(r % systems.length)
        .concat(systems.slice(0, r % systems.length))) {
        const pid = s.child.pid;
        const c0 = processCpuUs(pid);
        const { samples } = await gen.ask(
          'latency',
          job(s, kind, { requests: kind.requests, warmup: 0 }),
        );
        const c1 = processCpuUs(pid);
        const cpu = (c1.all - c0.all) / kind.requests;
        results[kind.name] ??= {};
        results[kind.name][s.label] ??= { cpu: [], user: [], p50: [] };
        const entry = results[kind.name][s.label];
        entry.cpu.push(cpu);
        entry.user.push((c1.user - c0.user) / kind.requests);
        entry.p50.push(median(samples));
      }
    }
  }
  report(
    results,
    systems.map((s) => s.label),
  );
  if (argv.includes('--json')) process.stdout.write(`${JSON.stringify(results)}\n`);
  // SIGTERM, not SIGKILL, so that a profiled build writes its profile on the way out.
  await Promise.all(
    systems.map(
      (s) =>
        new Promise((done) => {
          s.child.once('exit', done);
          s.child.kill('SIGTERM');
        }),
    ),
  );
  killAll();
  rmSync(scratch, { recursive: true, force: true });
  if (PROFILE) stagesReport(builds, results, kinds);
}

/** Where a build's profile is written (--profile). */
function profileOf(build) {
  build.profile ??= join(ROOT, 'bench', 'profiles', `cpu-${build.label}-${Date.now()}.cpuprofile`);
  return build.profile;
}

/**
 * Each profiled build's cost by stage (bench/stages.mjs), in µs of its CPU per request as
 * measured under the profiler, which inflates every figure: read the shares.
 */
function stagesReport(builds, results, kinds) {
  const lines = [`\ncost by stage, ${kinds.map((k) => k.name).join(' and ')} (under the profiler)`];
  for (const b of builds) {
    let profile;
    try {
      profile = JSON.parse(readFileSync(b.profile, 'utf8'));
    } catch {
      lines.push(`${b.label}: no profile at ${b.profile}`);
      continue;
    }
    const cpu = kinds.length === 1 ? median(results[kinds[0].name][b.label].cpu) : null;
    lines.push(`\n${b.label} (${b.profile})`, stageTable(profile, cpu));
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * Per system: the median CPU per request and p50, and this build's ratio to it taken round by
 * round (both measured within the same minute, so the VM's drift cancels), then the median.
 */
function report(results, labels) {
  const lines = [];
  const pad = (s, n) => String(s).padStart(n);
  const ratio = (mine, theirs) => median(mine.map((x, i) => x / theirs[i]));
  for (const [kind, bySystem] of Object.entries(results)) {
    const me = bySystem.this;
    lines.push(
      `\n${kind} request, c=1, median of ${ROUNDS} rounds (this/it: median of per-round ratios)`,
    );
    lines.push(
      `${'system'.padEnd(16)}${pad('CPU µs/req', 12)}${pad('this/it', 9)}${pad('user µs', 9)}${pad('this/it', 9)}${pad('p50 ms', 9)}${pad('this/it', 9)}   CPU rounds`,
    );
    for (const label of labels) {
      const e = bySystem[label];
      lines.push(
        `${label.padEnd(16)}${pad(median(e.cpu).toFixed(0), 12)}${pad(ratio(me.cpu, e.cpu).toFixed(2), 9)}` +
          `${pad(median(e.user).toFixed(0), 9)}${pad(ratio(me.user, e.user).toFixed(2), 9)}` +
          `${pad(median(e.p50).toFixed(3), 9)}${pad(ratio(me.p50, e.p50).toFixed(2), 9)}   ` +
          e.cpu.map((x) => x.toFixed(0)).join(' '),
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  killAll();
  process.exit(1);
});
