// Chaos: many streams cut at random points (resets, stalls past the idle timeout, error events
// inside the 200 stream), through every client format and upstream kind, all end with the full
// text; none hangs; the heap after a second round is where the first left it.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BreakwaterConfig } from '../../src/shared/contract';
import { type Client, FULL, readAnswer, readerProviders } from '../support/continuation-clients';
import type { FakeStep, FakeUpstream } from '../support/fake-upstream';
import { fakeProvider, startGateway, type TestGateway } from '../support/gateway';
import { scale } from './support/harness';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const STREAMS = scale(60, 500);
const AT_ONCE = 25;
/** A stream that takes longer than this hangs. */
const HANG_MS = 15_000;
/** What a second round may add to the heap the first left: nothing that grows per stream. */
const HEAP_GROWTH_BYTES = 8 * 1024 * 1024;

function config(primary: FakeUpstream): BreakwaterConfig {
  return {
    providers: [
      ...readerProviders(primary),
      fakeProvider('gm', 'gemini', primary, ['gemini-test'], 'gm-test-key-0123456789'),
    ],
  };
}

/** A small seeded generator (mulberry32): a failing run can be repeated with its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = Number(process.env.CHAOS_SEED ?? Date.now() % 100_000);
const rnd = random(SEED);
const WORDS = FULL.split(/\s+/).length;

/**
 * Every step answers the rest of FULL after whatever partial answer its request carries. A
 * continuation of a stream cut after all its text (before its end) has nothing left to say; its
 * cut would be a failure before any content, which the attempt's retries bound (three in a row
 * end the stream with an error, as they should), not a cut in the text this test is about.
 */
function step(): FakeStep {
  const base: FakeStep = {
    finish: { text: FULL, repeatWords: rnd() < 0.2 ? 3 : 0 },
    byWords: true,
    cutsNeedText: true,
  };
  const p = rnd();
  const at = 1 + Math.floor(rnd() * (WORDS - 2));
  if (p < 0.15) return { ...base, resetAfterChunks: at };
  if (p < 0.25) return { ...base, errorAfterChunks: at };
  if (p < 0.3) return { ...base, stallAfterChunks: at };
  return base;
}

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({ config: (primary) => config(primary) });
  const res = await gw.admin('/api/settings', {
    method: 'PATCH',
    body: JSON.stringify({ 'timeouts.idleMs': 300, 'streamContinuation.maxContinuations': 10 }),
  });
  expect(res.status).toBe(200);
  gw.primary.setDefault({ finish: { text: FULL }, byWords: true });
  gw.engine.onEvent((e) => {
    if (e.type !== 'request.completed') return;
    const why = /stream not continued \(([^)]*)\)/.exec(e.entry.decision ?? '');
    if (why) notContinued.push(`${why[1]} — ${e.entry.decision}`);
  });
});
const notContinued: string[] = [];
afterAll(() => gw.close());

async function heap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
}

const CLIENTS: Client[] = ['chat', 'anthropic', 'responses', 'gemini'];
const TARGETS = ['oa/gpt-test', 'an/claude-test', 'gm/gemini-test'];

async function round(): Promise<string[]> {
  const steps: FakeStep[] = [];
  for (let i = 0; i < STREAMS * 2; i++) steps.push(step());
  gw.primary.script(...steps);
  const failures: string[] = [];
  for (let from = 0; from < STREAMS; from += AT_ONCE) {
    const batch = Array.from({ length: Math.min(AT_ONCE, STREAMS - from) }, async (_, i) => {
      const client = CLIENTS[(from + i) % CLIENTS.length]!;
      const target = TARGETS[Math.floor((from + i) / CLIENTS.length) % TARGETS.length]!;
      let timer: NodeJS.Timeout | undefined;
      const hang = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('hung')), HANG_MS);
      });
      try {
        const { text, stops } = await Promise.race([readAnswer(gw.url, client, target), hang]);
        if (text !== FULL) failures.push(`${client} → ${target}: ${JSON.stringify(text)}`);
        else if (stops.length !== 1) failures.push(`${client} → ${target}: stops ${stops}`);
      } catch (err) {
        failures.push(`${client} → ${target}: ${(err as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
    });
    await Promise.all(batch);
  }
  gw.primary.reset();
  gw.primary.setDefault({ finish: { text: FULL }, byWords: true });
  return failures;
}

describe(`mid-stream continuation under random cuts (seed ${SEED})`, () => {
  it(`${STREAMS} streams cut at random points all end with the full text; none hangs; memory flat`, async () => {
    const first = await round();
    expect({ first, notContinued }).toEqual({ first: [], notContinued: [] });
    const after1 = await heap();
    const second = await round();
    expect({ second, notContinued }).toEqual({ second: [], notContinued: [] });
    const after2 = await heap();
    expect(after2 - after1).toBeLessThan(HEAP_GROWTH_BYTES);
  }, 600_000);
});
