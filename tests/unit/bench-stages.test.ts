import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a bench script in plain JavaScript, with no declarations
import { stageShares, stageTable } from '../../bench/stages.mjs';

// bench/stages.mjs: the cost of each request stage from a CPU profile. Each sample goes to the
// innermost pipeline module on its stack, found through the bundle's module comments.

const dir = mkdtempSync(join(tmpdir(), 'bw-stages-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bundle = join(dir, 'out', 'main', 'engine.js');
const lines = [
  '// src/main/engine/proxy/pipeline/run.ts', // 0
  'function runRequest() {}', // 1
  '// src/main/engine/proxy/pipeline/parse.ts', // 2
  'var parse = { name: "parse", run() {} };', // 3
  '// src/main/engine/usage/usage.ts', // 4
  'function usageOfBody() {}', // 5
  '// src/main/engine/proxy/pipeline/relay.ts', // 6
  'function relay() {}', // 7
  '// src/main/engine/store/request-log-writer.ts', // 8
  'function flushBatch() {}', // 9
];
mkdirSync(join(dir, 'out', 'main'), { recursive: true });
writeFileSync(bundle, lines.join('\n'));
const url = pathToFileURL(bundle).href;

const frame = (functionName: string, lineNumber: number, inBundle = true) => ({
  functionName,
  url: inBundle ? url : 'node:net',
  lineNumber,
  columnNumber: 0,
});

/** A call tree, as V8 writes it: (root) → runRequest → parse, relay → usageOfBody, writev. */
function profile() {
  const nodes = [
    { id: 1, callFrame: frame('(root)', -1, false), children: [2, 6, 8, 9] },
    { id: 2, callFrame: frame('runRequest', 1), children: [3, 4] },
    { id: 3, callFrame: frame('run', 3), children: [] },
    { id: 4, callFrame: frame('relay', 7), children: [5, 7] },
    { id: 5, callFrame: frame('usageOfBody', 5), children: [] },
    { id: 6, callFrame: frame('(garbage collector)', -1, false), children: [] },
    { id: 7, callFrame: frame('writev', -1, false), children: [] },
    { id: 8, callFrame: frame('flushBatch', 9), children: [] },
    { id: 9, callFrame: frame('(idle)', -1, false), children: [] },
  ];
  // Self time per node, in µs: node id → time, as samples of 1 µs.
  const self: Record<number, number> = { 2: 5, 3: 10, 4: 4, 5: 6, 6: 8, 7: 20, 8: 7, 9: 1000 };
  const samples: number[] = [];
  for (const [id, t] of Object.entries(self)) for (let i = 0; i < t; i++) samples.push(Number(id));
  return { nodes, samples, timeDeltas: samples.map(() => 1) };
}

describe('bench/stages.mjs', () => {
  it('gives each sample to the innermost pipeline module above it, idle left out', () => {
    const { parts, busy } = stageShares(profile());
    expect(busy).toBe(60);
    expect(Object.fromEntries(parts)).toEqual({
      'run.ts': 5,
      'parse.ts': 10,
      // The relay's own time, the usage it reads and the socket write it makes.
      'relay.ts': 30,
      '(garbage collector)': 8,
      '(outside the stages) store/request-log-writer.ts': 7,
    });
  });

  it('prints shares, and µs of a given CPU per request', () => {
    const table = stageTable(profile(), 120);
    expect(table).toMatch(/relay\.ts\s+50\.0 %\s+60\.0/);
    expect(table).toMatch(/parse\.ts\s+16\.7 %\s+20\.0/);
    expect(table.split('\n')[1]).toMatch(/^relay\.ts/);
  });

  it('a bundle it cannot read leaves every frame outside the stages', () => {
    const p = profile();
    for (const n of p.nodes) if (n.callFrame.url === url) n.callFrame.url = `${url}.gone`;
    const { parts } = stageShares(p);
    expect([...parts.keys()].sort()).toEqual([
      '(garbage collector)',
      '(outside the stages) Node, undici, V8',
    ]);
  });
});
