import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importProblems, type LayerRules, privateImports } from '../support/layers';

const ROOT = resolve(__dirname, '../..');

/**
 * The layers of the main process, top to bottom (docs/architecture.md). A module imports only
 * modules of its own unit (a folder, or a file named alone) or of a unit in a layer below; units
 * of one layer do not import each other. `shared` is below everything and imports nothing above.
 */
const MAIN_LAYERS: LayerRules = [
  ['src/main/index.ts'],
  ['src/main/cli.ts', 'src/main/statusline.ts', 'src/main/shell'],
  ['src/main/cli-rules.ts', 'src/main/cli-statusline.ts', 'src/main/cli-connect.ts'],
  ['src/main/cli-accounts.ts'],
  ['src/main/engine/index.ts'],
  ['src/main/engine/engine.ts'],
  ['src/main/engine/assembly'],
  ['src/main/engine/admin', 'src/main/engine/proxy', 'src/main/engine/ui'],
  ['src/main/engine/resilience'],
  [
    'src/main/engine/routing',
    'src/main/engine/usage',
    'src/main/engine/import',
    'src/main/engine/setup',
    'src/main/engine/websearch',
  ],
  ['src/main/engine/translate'],
  ['src/main/engine/upstream'],
  ['src/main/engine/wire'],
  ['src/main/engine/state'],
  ['src/main/engine/store'],
  ['src/main/engine/config', 'src/main/engine/agents'],
  ['src/main/engine/settings'],
  [
    'src/main/engine/bounded-map.ts',
    'src/main/engine/clock.ts',
    'src/main/engine/data-dir.ts',
    'src/main/engine/events.ts',
    'src/main/engine/gc-tuning.ts',
    'src/main/engine/json-syntax.ts',
    'src/main/engine/lazy-module.ts',
    'src/main/engine/logger.ts',
    'src/main/engine/version.ts',
  ],
  ['src/shared', 'package.json'],
];

/**
 * The mechanism folders of the resilience layer (docs/architecture.md). Each is used from outside
 * its folder only through its `index.ts`; the top of `resilience/` keeps at most eight files.
 */
const RESILIENCE = 'src/main/engine/resilience';
const MECHANISMS = [
  'continuation',
  'flow',
  'health',
  'leases',
  'quota-wait',
  'shape',
  'stream',
  'subscription',
].map((name) => `${RESILIENCE}/${name}`);

/** The renderer's own layers: it knows only itself and `src/shared` (through BridgeApi). */
const RENDERER_LAYERS: LayerRules = [
  ['src/renderer/src/main.tsx'],
  ['src/renderer/src/App.tsx'],
  ['src/renderer/src/pages'],
  ['src/renderer/src/components'],
  ['src/renderer/src/hooks.ts'],
  ['src/renderer/src/state'],
  ['src/renderer/src/bridge'],
  ['src/renderer/src/env.d.ts'],
  ['src/shared', 'src/renderer/src/styles'],
];

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (/\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Every relative import of every source file, as repo-relative paths. */
function importGraph(): Map<string, { target: string; line: number }[]> {
  const graph = new Map<string, { target: string; line: number }[]>();
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']*)'/gm;
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    const text = readFileSync(file, 'utf8');
    const edges: { target: string; line: number }[] = [];
    for (const m of text.matchAll(pattern)) {
      const abs = resolve(dirname(file), m[1]!);
      const target =
        ['', '.ts', '.tsx', '/index.ts', '/index.tsx', '.d.ts']
          .map((ext) => abs + ext)
          .find(isFile) ?? abs;
      edges.push({
        target: relative(ROOT, target),
        line: text.slice(0, m.index).split('\n').length,
      });
    }
    graph.set(relative(ROOT, file), edges);
  }
  return graph;
}

describe('layers', () => {
  const graph = importGraph();

  it('main process: every import points down or stays in its unit, and no cycle', () => {
    expect(importProblems(graph, MAIN_LAYERS, ['src/main', 'src/shared'])).toEqual([]);
  });

  it('renderer: every import points down or stays in its unit, and no cycle', () => {
    expect(importProblems(graph, RENDERER_LAYERS, ['src/renderer'])).toEqual([]);
  });

  it('resilience: a folder per mechanism, each imported from outside through its index', () => {
    const top = readdirSync(join(ROOT, RESILIENCE), { withFileTypes: true });
    expect(top.filter((e) => e.isDirectory()).map((e) => `${RESILIENCE}/${e.name}`)).toEqual(
      MECHANISMS,
    );
    expect(top.filter((e) => e.isFile()).length).toBeLessThanOrEqual(8);
    for (const folder of MECHANISMS) expect(isFile(join(ROOT, folder, 'index.ts'))).toBe(true);
    expect(privateImports(graph, MECHANISMS)).toEqual([]);
  });

  it('the mechanism check fails on an import that reaches into a private file', () => {
    const wrong = new Map(graph);
    wrong.set('src/main/engine/proxy/pipeline/admit.ts', [
      { target: `${RESILIENCE}/health/breaker.ts`, line: 7 },
      { target: `${RESILIENCE}/health/index.ts`, line: 8 },
    ]);
    wrong.set(`${RESILIENCE}/leases/planning.ts`, [
      { target: `${RESILIENCE}/leases/lease.ts`, line: 2 },
      { target: `${RESILIENCE}/health/exclusion.ts`, line: 3 },
    ]);
    expect(privateImports(wrong, MECHANISMS)).toEqual([
      `src/main/engine/proxy/pipeline/admit.ts:7 imports ${RESILIENCE}/health/breaker.ts, a private file of ${RESILIENCE}/health (use its index.ts)`,
      `${RESILIENCE}/leases/planning.ts:3 imports ${RESILIENCE}/health/exclusion.ts, a private file of ${RESILIENCE}/health (use its index.ts)`,
    ]);
  });

  it('no page imports another page', () => {
    const problems: string[] = [];
    for (const [file, edges] of graph) {
      const page = /^src\/renderer\/src\/pages\/([^/.]+)/.exec(file)?.[1];
      if (!page) continue;
      for (const { target, line } of edges) {
        const other = /^src\/renderer\/src\/pages\/([^/.]+)/.exec(target)?.[1];
        if (other && other !== page) problems.push(`${file}:${line} imports page ${target}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("only the shell, the Electron entry and the preload import 'electron'; the engine never imports React", () => {
    const problems: string[] = [];
    for (const file of graph.keys()) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      const electron = /from\s*'electron'|require\('electron'\)|import\('electron'\)/.test(text);
      const shellSide =
        file === 'src/main/index.ts' ||
        file.startsWith('src/main/shell/') ||
        file.startsWith('src/preload/');
      if (electron && !shellSide) problems.push(`${file} imports electron`);
      if (/'electron-updater'/.test(text) && !file.startsWith('src/main/shell/')) {
        problems.push(`${file} imports electron-updater`);
      }
      if (file.startsWith('src/main/engine/') && /from\s*'react(-dom)?(\/[^']*)?'/.test(text)) {
        problems.push(`${file} imports React`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('the check itself fails on an import that points up, and on a cycle', () => {
    const wrong = new Map(graph);
    wrong.set('src/main/engine/wire/client-errors.ts', [
      { target: 'src/main/engine/proxy/server.ts', line: 1 },
    ]);
    expect(importProblems(wrong, MAIN_LAYERS, ['src/main'])).toContain(
      'src/main/engine/wire/client-errors.ts:1 imports src/main/engine/proxy/server.ts, a layer above it (src/main/engine/wire → src/main/engine/proxy)',
    );
    const cycle = new Map([
      ['src/main/engine/store/a.ts', [{ target: 'src/main/engine/store/b.ts', line: 3 }]],
      ['src/main/engine/store/b.ts', [{ target: 'src/main/engine/store/a.ts', line: 4 }]],
    ]);
    expect(importProblems(cycle, MAIN_LAYERS, ['src/main'])).toEqual([
      'import cycle: src/main/engine/store/a.ts → src/main/engine/store/b.ts → src/main/engine/store/a.ts',
    ]);
  });
});
