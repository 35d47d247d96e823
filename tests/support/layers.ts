/** Layers top to bottom; each a list of units (a folder, or a single file). */
export type LayerRules = readonly (readonly string[])[];

type Graph = ReadonlyMap<string, readonly { target: string; line: number }[]>;

function unitOf(file: string, layers: LayerRules): { unit: string; layer: number } | null {
  let best: { unit: string; layer: number } | null = null;
  layers.forEach((units, layer) => {
    for (const unit of units) {
      if ((file === unit || file.startsWith(`${unit}/`)) && unit.length > (best?.unit.length ?? -1))
        best = { unit, layer };
    }
  });
  return best;
}

/**
 * What breaks the layer rules in `graph` among the files under `scopes`: an import of a unit in
 * the same layer or a layer above, a file or target outside every layer, and import cycles
 * (reported once each, starting at their smallest file).
 */
export function importProblems(
  graph: Graph,
  layers: LayerRules,
  scopes: readonly string[],
): string[] {
  const inScope = (f: string) => scopes.some((s) => f === s || f.startsWith(`${s}/`));
  const problems: string[] = [];
  for (const [file, edges] of graph) {
    if (!inScope(file)) continue;
    const from = unitOf(file, layers);
    if (!from) {
      problems.push(`${file} is in no layer (add its folder to the layer list)`);
      continue;
    }
    for (const { target, line } of edges) {
      const to = unitOf(target, layers);
      if (!to) problems.push(`${file}:${line} imports ${target}, which is outside its layers`);
      else if (to.unit === from.unit) continue;
      else if (to.layer === from.layer)
        problems.push(
          `${file}:${line} imports ${target}, a unit of its own layer (${from.unit} → ${to.unit})`,
        );
      else if (to.layer < from.layer)
        problems.push(
          `${file}:${line} imports ${target}, a layer above it (${from.unit} → ${to.unit})`,
        );
    }
  }
  return [...problems, ...cycles(graph, inScope)];
}

function cycles(graph: Graph, inScope: (f: string) => boolean): string[] {
  const found = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const { target } of graph.get(file) ?? []) {
      if (!inScope(target) || !graph.has(target)) continue;
      if (state.get(target) === 'open') {
        const loop = path.slice(path.indexOf(target));
        const start = loop.indexOf([...loop].sort()[0]!);
        const rotated = [...loop.slice(start), ...loop.slice(0, start)];
        found.add(`import cycle: ${[...rotated, rotated[0]].join(' → ')}`);
      } else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (inScope(file) && !state.has(file)) visit(file);
  return [...found];
}

/**
 * Imports that reach into a folder's private files: each folder of `folders` is used from outside
 * only through its `index.ts`, so what a mechanism exports is the one list there.
 */
export function privateImports(graph: Graph, folders: readonly string[]): string[] {
  const problems: string[] = [];
  for (const [file, edges] of graph) {
    for (const { target, line } of edges) {
      const folder = folders.find((f) => target.startsWith(`${f}/`));
      if (
        !folder ||
        file.startsWith(`${folder}/`) ||
        /^index\.tsx?$/.test(target.slice(folder.length + 1))
      )
        continue;
      problems.push(
        `${file}:${line} imports ${target}, a private file of ${folder} (use its index.ts)`,
      );
    }
  }
  return problems;
}
