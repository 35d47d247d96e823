#!/usr/bin/env node
// `node bench/stages.mjs PROFILE... [--us-per-request=N]`: the cost of each request stage, from
// a CPU profile of the gateway (`npm run bench:cpu -- --profile --only=short`, which prints this
// table itself). Every sample of busy time goes to the innermost frame on its stack that lies in
// a module of the request pipeline (`src/main/engine/proxy/pipeline/*.ts`, one stage or part per
// file): what a stage calls (usage, routing, resilience, Node's sockets) is that stage's cost.
// Samples with no pipeline frame on their stack are grouped by the engine module they ran in
// (the request log's flush, undici's callbacks into the pools) or as Node, undici and the
// collector. The bundle's `// src/...` module comments tell which module a function came from,
// so a new stage file shows as a new row with no change here.
//
// Shares are of the profile's busy time (idle left out). With --us-per-request, each share is
// also given in µs of that CPU per request; the profiler inflates every figure, so pass a CPU per
// request measured without it and read the µs as that measurement split by the shares.
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PIPELINE = 'src/main/engine/proxy/pipeline/';
const ENGINE = 'src/main/engine/';

/** For one bundle file: its module comments, as sorted [first line (0-based), module path]. */
function moduleMap(url) {
  let text;
  try {
    text = readFileSync(fileURLToPath(url), 'utf8');
  } catch {
    return [];
  }
  const starts = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^\/\/ (src\/\S+\.tsx?)$/.exec(lines[i]);
    if (m) starts.push([i, m[1]]);
  }
  return starts;
}

/** The module a frame's function was bundled from, or null when it is not the gateway's code. */
function moduleResolver() {
  const maps = new Map();
  return (frame) => {
    const url = frame.url;
    if (!url.startsWith('file:') || !url.includes('/out/')) return null;
    let starts = maps.get(url);
    if (!starts) {
      starts = moduleMap(url);
      maps.set(url, starts);
    }
    let found = null;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid][0] <= frame.lineNumber) {
        found = starts[mid][1];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

/** Busy µs per part of the request path in one profile, and the busy total. */
export function stageShares(profile) {
  const moduleOf = moduleResolver();
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parts = new Map();
  let busy = 0;
  // Depth first from the root, carrying the innermost pipeline module above each node.
  const root = profile.nodes[0];
  const stack = [[root, null]];
  while (stack.length > 0) {
    const [node, above] = stack.pop();
    const frame = node.callFrame;
    const module = moduleOf(frame);
    const stage = module?.startsWith(PIPELINE) ? module.slice(PIPELINE.length) : above;
    const t = self.get(node.id) ?? 0;
    if (t > 0 && frame.functionName !== '(idle)') {
      busy += t;
      const part =
        stage ??
        (module
          ? `(outside the stages) ${module.slice(ENGINE.length)}`
          : frame.functionName === '(garbage collector)'
            ? '(garbage collector)'
            : '(outside the stages) Node, undici, V8');
      parts.set(part, (parts.get(part) ?? 0) + t);
    }
    for (const c of node.children ?? []) stack.push([byId.get(c), stage]);
  }
  return { parts, busy };
}

/** The table: one row per part, largest first. */
export function stageTable(profile, usPerRequest) {
  const { parts, busy } = stageShares(profile);
  const rows = [...parts].sort((a, b) => b[1] - a[1]);
  const width = Math.max(24, ...rows.map(([k]) => k.length));
  const lines = [
    `${'stage or part'.padEnd(width)}  ${'share'.padStart(7)}${usPerRequest ? '  µs/request' : ''}`,
  ];
  for (const [part, t] of rows) {
    const share = t / busy;
    if (share < 0.001) continue;
    lines.push(
      `${part.padEnd(width)}  ${`${(share * 100).toFixed(1)} %`.padStart(7)}` +
        (usPerRequest ? `${(share * usPerRequest).toFixed(1).padStart(12)}` : ''),
    );
  }
  return `${lines.join('\n')}\n`;
}

const invoked = process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invoked) {
  const args = process.argv.slice(2);
  const us = Number(args.find((a) => a.startsWith('--us-per-request='))?.slice(17)) || null;
  const files = args.filter((a) => !a.startsWith('--'));
  if (files.length === 0) {
    process.stderr.write('usage: node bench/stages.mjs PROFILE... [--us-per-request=N]\n');
    process.exit(2);
  }
  for (const f of files) {
    process.stdout.write(`\n${f}\n${stageTable(JSON.parse(readFileSync(f, 'utf8')), us)}`);
  }
}
