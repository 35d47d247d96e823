// The heap gate's load: a new client session on every request, the worst case for state keyed by
// sessions (OpenAI clients send a new `prompt_cache_key` per conversation). It calls what the
// pipeline calls per request on the engine's own structures (session pins, routing signals) with
// an injected clock, so a million requests take seconds, not the half hour HTTP would.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BoundedMaps } from '../../../src/main/engine/bounded-map';
import { SessionAffinity } from '../../../src/main/engine/resilience/affinity';
import type { Candidate } from '../../../src/main/engine/routing/resolve';
import { RoutingSignals } from '../../../src/main/engine/routing/signals';
import { biggestRetainers, type Retainer } from '../../support/heap-retainers';

let collector: (() => void) | null = null;
/** A full collection (V8's `gc`, exposed at run time: vitest's workers start without the flag). */
export function gc(): void {
  if (!collector) {
    setFlagsFromString('--expose-gc');
    collector = runInNewContext('gc') as () => void;
  }
  collector();
}

/** The default session affinity TTL (sessionAffinityTtlMs). */
const PIN_TTL_MS = 30 * 60_000;
/** Time between requests: 50 a second, a busy team server. */
const STEP_MS = 20;
/** FlowControl writes dirty pins every second; the load does as its flusher would. */
const FLUSH_EVERY = 50;

export interface SessionState {
  maps: BoundedMaps;
  /** Runs request `n` (session `sess-<n>`) at the load's clock. */
  request(n: number): void;
}

const candidate = (label: string, connection: string) =>
  ({ target: { label }, connection: { id: connection } }) as unknown as Candidate;
const TARGETS = [candidate('oa/gpt-test', 'oa-1'), candidate('oa2/gpt-backup', 'oa2-1')];

/** The per-request state of the engine, fed as the pipeline feeds it. */
export function sessionState(clock: { now: number }): SessionState {
  const maps = new BoundedMaps(() => clock.now);
  const affinity = new SessionAffinity([], { ttlMs: () => PIN_TTL_MS, maps });
  const routing = new RoutingSignals(() => 0.5, undefined, maps);
  return {
    maps,
    request(n) {
      clock.now += STEP_MS;
      const now = clock.now;
      const session = `sess-${n}`;
      const c = n % 10 === 0 ? candidate(`oa/model-${n}`, 'oa-1') : TARGETS[n % 2]!;
      affinity.pinned(session, now);
      routing.routed('coder', c.target.label, 2, now);
      routing.learnCall(c, { ok: true, latencyMs: 120, headers: null }, now);
      affinity.pin(session, c.connection.id, now);
      routing.relaySessions.get('relay', session, now);
      routing.relaySessions.set('relay', session, c.target.label, now);
      routing.settled('cache', c.target.label, true, `prefix-${n}`, now);
      if (n % FLUSH_EVERY === 0) affinity.takeDirty();
      if (n % 3000 === 0) maps.sweep(); // the engine's sweep timer, once a simulated minute
    },
  };
}

export async function settledHeap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
}

export interface GateResult {
  requests: number;
  /** Retained heap once the load's state existed and its maps were full. */
  atCheckpoint: number;
  /** What the rest of the load added to it. */
  grewBytes: number;
  /** When it grew past the bound: what grew most meanwhile. */
  biggest: Retainer[] | null;
}

/**
 * Runs `requests` through `record`, measures the heap after a full GC at `checkpoint` (every
 * bounded map full by then) and at the end. Past `boundBytes` of growth it runs `probe` more
 * requests between two heap snapshots and names the collections that grew most.
 */
export async function sessionHeapGate(opts: {
  record: (n: number) => void;
  requests: number;
  checkpoint: number;
  boundBytes: number;
  probe?: number;
}): Promise<GateResult> {
  let n = 0;
  const run = (until: number) => {
    while (n < until) opts.record(n++);
  };
  run(opts.checkpoint);
  const atCheckpoint = await settledHeap();
  run(opts.requests);
  const grewBytes = (await settledHeap()) - atCheckpoint;
  if (grewBytes <= opts.boundBytes) return { requests: n, atCheckpoint, grewBytes, biggest: null };
  const before = unboundedNow();
  run(n + (opts.probe ?? 50_000));
  const after = unboundedNow();
  const biggest = [...after]
    .map(([path, r]) => ({ ...r, bytes: r.bytes - (before.get(path)?.bytes ?? 0) }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 3);
  return { requests: n, atCheckpoint, grewBytes, biggest };
}

/**
 * What `load` made each collection outside the bounded maps grow by, in entries (which, unlike
 * bytes, do not move as code is compiled), most first: heap snapshots before and after.
 */
/** The test's own locals (stack roots), Node's module registry and the test runner's. */
const NOT_THE_ENGINE = /^\[1\]\.\[7\]\.|BuiltinModule|Vitest/;

export async function growthOutsideBoundedMaps(load: () => Promise<void>): Promise<Retainer[]> {
  await settledHeap();
  // Kept as text while the load runs: a map of its own would be the biggest collection after.
  const before = JSON.stringify([...unboundedNow()]);
  await load();
  await settledHeap();
  const after = unboundedNow();
  const held = new Map<string, Retainer>(JSON.parse(before));
  return [...after]
    .filter(([path]) => !NOT_THE_ENGINE.test(path))
    .map(([path, r]) => ({
      ...r,
      bytes: r.bytes - (held.get(path)?.bytes ?? 0),
      entries: r.entries - (held.get(path)?.entries ?? 0),
    }))
    .sort((a, b) => b.entries - a.entries);
}

/**
 * The collections in the heap now that are not bounded maps (those hold at most their cap), with
 * what they retain, summed per path (a snapshot, read and deleted).
 */
function unboundedNow(): Map<string, Retainer> {
  gc();
  const file = writeHeapSnapshot(
    join(tmpdir(), `bw-heap-gate-${process.pid}-${Date.now()}.heapsnapshot`),
  );
  try {
    const byPath = new Map<string, Retainer>();
    for (const r of biggestRetainers(file, Number.MAX_SAFE_INTEGER)) {
      if (r.path.startsWith('BoundedMap')) continue;
      const held = byPath.get(r.path);
      byPath.set(
        r.path,
        held ? { ...held, bytes: held.bytes + r.bytes, entries: held.entries + r.entries } : r,
      );
    }
    return byPath;
  } finally {
    rmSync(file, { force: true });
  }
}
