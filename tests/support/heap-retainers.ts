// Reads a V8 heap snapshot and names the collections that hold the most: every Map, Set and Array
// with its backing store's size and the path from the GC roots that keeps it alive
// (`RoutingSignals.prefixes`). The heap gate prints it when it fails, so a leak names itself.
import { readFileSync } from 'node:fs';

export interface Retainer {
  /** Owner chain from the roots, class names and properties: `FlowControl.affinity.pins`. */
  path: string;
  kind: string;
  /** What the collection keeps alive (its entries and what only they hold), in bytes. */
  bytes: number;
  /** Slots referenced by its backing store: grows with its entries (a Map has about 2 each). */
  entries: number;
}

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[]];
      edge_fields: string[];
      edge_types: [string[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const COLLECTIONS = new Set(['Map', 'Set', 'Array']);
/** Owners the path looks through to name the class that holds them. */
const TRANSPARENT = new Set([...COLLECTIONS, 'BoundedMap', 'Object', 'system / Context']);

export function biggestRetainers(file: string, top = 5): Retainer[] {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const nf = s.snapshot.meta.node_fields;
  const ef = s.snapshot.meta.edge_fields;
  const nodeTypes = s.snapshot.meta.node_types[0];
  const edgeTypes = s.snapshot.meta.edge_types[0];
  const N = nf.length;
  const E = ef.length;
  const [nType, nName, nSize, nEdges] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
    nf.indexOf(f),
  ) as [number, number, number, number];
  const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const count = s.nodes.length / N;
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0; i < count; i++) firstEdge[i + 1] = firstEdge[i]! + s.nodes[i * N + nEdges]!;
  const name = (i: number) => s.strings[s.nodes[i * N + nName]!]!;
  const type = (i: number) => nodeTypes[s.nodes[i * N + nType]!]!;
  const edgeLabel = (e: number) => {
    const t = edgeTypes[s.edges[e + eType]!]!;
    const v = s.edges[e + eName]!;
    return t === 'element' || t === 'hidden' ? `[${v}]` : s.strings[v]!;
  };
  // Breadth first from the root over strong edges: each node's parent on a shortest path.
  const parent = new Int32Array(count).fill(-1);
  const via = new Int32Array(count).fill(-1);
  parent[0] = 0;
  const queue = new Uint32Array(count);
  let head = 0;
  let tail = 1;
  while (head < tail) {
    const i = queue[head++]!;
    for (let k = firstEdge[i]!; k < firstEdge[i + 1]!; k++) {
      const e = k * E;
      const t = edgeTypes[s.edges[e + eType]!];
      if (t === 'weak' || t === 'shortcut') continue;
      const to = s.edges[e + eTo]! / N;
      if (parent[to] !== -1) continue;
      parent[to] = i;
      via[to] = e;
      queue[tail++] = to;
    }
  }
  // What each node keeps alive on its shortest path from the roots: the subtree of that tree.
  const retained = new Float64Array(count);
  for (let k = tail - 1; k >= 0; k--) {
    const i = queue[k]!;
    retained[i]! += s.nodes[i * N + nSize]!;
    if (i !== 0) retained[parent[i]!]! += retained[i]!;
  }
  const child = (i: number, label: string): number | null => {
    for (let k = firstEdge[i]!; k < firstEdge[i + 1]!; k++) {
      if (edgeLabel(k * E) === label) return s.edges[k * E + eTo]! / N;
    }
    return null;
  };
  /** A bounded map goes by the name it has in `/metrics`, wherever it is held. */
  const boundedName = (i: number): string | null => {
    const opts = child(i, 'opts');
    const label = opts === null ? null : child(opts, 'name');
    return label === null ? null : `BoundedMap(${name(label)})`;
  };
  const pathOf = (i: number): string => {
    const parts: string[] = [];
    for (let at = i; at !== 0 && parts.length < 12; at = parent[at]!) {
      const p = parent[at]!;
      parts.unshift(edgeLabel(via[at]!));
      const bounded = name(p) === 'BoundedMap' ? boundedName(p) : null;
      if (bounded || (type(p) === 'object' && !TRANSPARENT.has(name(p)))) {
        parts.unshift(bounded ?? name(p));
        break;
      }
    }
    return parts.join('.');
  };
  const found: Retainer[] = [];
  for (let i = 0; i < count; i++) {
    if (type(i) !== 'object' || !COLLECTIONS.has(name(i)) || parent[i] === -1) continue;
    const store = child(i, name(i) === 'Array' ? 'elements' : 'table');
    const entries = store === null ? 0 : firstEdge[store + 1]! - firstEdge[store]!;
    found.push({ path: pathOf(i), kind: name(i), bytes: retained[i]!, entries });
  }
  return found.sort((a, b) => b.bytes - a.bytes).slice(0, top);
}
