// The chaos suite: through the real gateway, the fake upstreams inject faults. In every scenario
// each client request ends within its deadline with an answer or an error it can parse, the
// request log has exactly one row per request, and the resilience state is the one RESILIENCE.md
// predicts; at the end sockets, timers and file descriptors are back to where they started.
// `npm test` runs it short; `npm run test:chaos` (CHAOS_LONG=1) runs every scenario longer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeStep } from '../support/fake-upstream';
import { eventually, startGateway, type TestGateway } from '../support/gateway';
import {
  type Ask,
  type Clients,
  clients,
  LONG,
  load,
  logRows,
  type Outcome,
  resources,
  scale,
  unserved,
} from './support/harness';

/** Each scenario's time: the long run sends ten times more. */
const TIMEOUT = scale(30_000, 600_000);

let gw: TestGateway;
let c: Clients;
let baseline: ReturnType<typeof resources>;
const totals = { requests: 0, faults: 0, served: 0, errors: 0 };

beforeAll(async () => {
  baseline = resources();
  gw = await startGateway();
  c = clients(() => gw);
});

afterAll(async () => {
  await c.close();
  await gw.close();
  console.log(`chaos ${LONG ? 'long' : 'short'} run: ${JSON.stringify(totals)}`);
});

function asks(n: number, shape: Partial<Ask> = {}): Ask[] {
  return Array.from({ length: n }, (_, i) => ({
    format: i % 3 === 2 ? 'anthropic' : 'openai',
    model: 'coder',
    stream: i % 2 === 0,
    ...shape,
  }));
}

function faults(n: number, step: FakeStep): FakeStep[] {
  totals.faults += n;
  return Array.from({ length: n }, () => step);
}

/** The invariants every scenario ends with; returns the outcomes for its own checks. */
async function run(list: Ask[], concurrency = 8, deadlineMs = 15_000): Promise<Outcome[]> {
  const rowsBefore = logRows(gw);
  const outcomes = await load(c, list, concurrency, deadlineMs);
  totals.requests += outcomes.length;
  const broken = outcomes.filter((o) => o.broken !== null).map((o) => o.broken);
  expect(broken).toEqual([]);
  for (const o of outcomes) expect(o.ms).toBeLessThan(deadlineMs);
  totals.served += outcomes.filter((o) => o.served).length;
  totals.errors += outcomes.filter((o) => o.wellFormedError).length;
  await eventually(() => logRows(gw) === rowsBefore + list.length, 5000).catch(() => {});
  expect(logRows(gw) - rowsBefore).toBe(list.length);
  return outcomes;
}

function reset(): void {
  gw.primary.reset();
  gw.backup.reset();
  gw.resetResilience();
}

const breaker = (provider: string) =>
  gw.engine.snapshot().breakers.find((b) => b.provider === provider)?.state;
const rateLimitedUntil = (connection: string) =>
  gw.engine.snapshot().connections.find((x) => x.id === connection)?.rateLimitedUntil ?? null;

describe('chaos: faults injected by the upstream', () => {
  it(
    'a burst of 503s and 500s: every request fails over, the breaker opens after 12',
    async () => {
      reset();
      gw.primary.script(...faults(8, { status: 503 }), ...faults(4, { status: 500 }));
      const out = await run(asks(12), 1);
      expect(unserved(out)).toEqual([]);
      expect(breaker('oa')).toBe('OPEN');
      const more = await run(asks(scale(20, 200)));
      expect(unserved(more)).toEqual([]);
      expect(gw.primary.requestCount).toBe(12); // an open circuit is not called
    },
    TIMEOUT,
  );

  it(
    'streams reset mid-way: the client sees an error event, never a silent cut',
    async () => {
      reset();
      gw.primary.setDefault({ resetAfterChunks: 2 });
      totals.faults += scale(24, 240);
      const out = await run(asks(scale(24, 240), { stream: true }));
      expect(out.some((o) => o.wellFormedError || o.served)).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'an upstream that never answers: the first-byte timeout moves on to the backup',
    async () => {
      reset();
      await gw.admin('/api/settings', {
        method: 'PATCH',
        body: JSON.stringify({ 'timeouts.firstByteMs': 300 }),
      });
      gw.primary.setDefault({ delayMs: 60_000 });
      totals.faults += scale(10, 60);
      const out = await run(asks(scale(10, 60)), 10);
      expect(unserved(out)).toEqual([]);
      await gw.admin('/api/settings', {
        method: 'PATCH',
        body: JSON.stringify({ 'timeouts.firstByteMs': null }),
      });
    },
    TIMEOUT,
  );

  it(
    'trickling streams are relayed whole',
    async () => {
      reset();
      gw.primary.setDefault({ chunks: 20, chunkDelayMs: 20 });
      const out = await run(asks(scale(16, 160), { stream: true }));
      expect(unserved(out)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'malformed SSE and JSON from the upstream, translated for Anthropic clients',
    async () => {
      reset();
      const n = scale(12, 120);
      gw.primary.script(
        ...faults(n / 2, { body: 'data: {"choices": [{"delta": {"content": "x"\n\n' }),
        ...faults(n / 2, { body: '{"choices": [' }),
      );
      await run(asks(n, { format: 'anthropic' }), 4);
    },
    TIMEOUT,
  );

  it(
    'a 429 storm with Retry-After: the connection cools down for what the upstream said',
    async () => {
      reset();
      gw.primary.setDefault({ status: 429, headers: { 'retry-after': '30' } });
      totals.faults += 1;
      const out = await run(asks(scale(20, 200)));
      expect(unserved(out)).toEqual([]);
      const until = rateLimitedUntil('oa-1');
      expect(until).not.toBeNull();
      expect(until! - Date.now()).toBeGreaterThan(20_000);
      // Only the requests already in flight when the first 429 came back reached it.
      expect(gw.primary.requestCount).toBeLessThanOrEqual(8);
    },
    TIMEOUT,
  );

  it(
    'quota exhausted across the whole combo: a parseable 429 or 503, with Retry-After',
    async () => {
      reset();
      const quota = { status: 429, headers: { 'retry-after': '120' } };
      gw.primary.setDefault(quota);
      gw.backup.setDefault(quota);
      totals.faults += 2;
      const out = await run(asks(scale(12, 120)));
      for (const o of out) {
        expect(o.wellFormedError).toBe(true);
        expect([429, 503]).toContain(o.status);
        expect(o.headers['retry-after']).toBeDefined();
      }
      expect(rateLimitedUntil('oa-1')).not.toBeNull();
      expect(rateLimitedUntil('oa2-1')).not.toBeNull();
    },
    TIMEOUT,
  );

  it(
    'a flapping upstream: every request is served, the breaker never opens',
    async () => {
      reset();
      const n = scale(40, 400);
      const steps: FakeStep[] = [];
      for (let i = 0; i < n; i++) steps.push(i % 2 === 0 ? { status: 503 } : {});
      totals.faults += n / 2;
      gw.primary.script(...steps);
      const out = await run(asks(n), 1);
      expect(unserved(out)).toEqual([]);
      expect(breaker('oa')).not.toBe('OPEN');
    },
    TIMEOUT,
  );
});

describe('chaos: afterwards', () => {
  it(
    'sockets, timers and file descriptors are back to where they started',
    async () => {
      reset();
      await c.close();
      await gw.close();
      const settled = () => {
        const r = resources();
        return (
          r.fds <= baseline.fds &&
          (r.handles.TCPSocketWrap ?? 0) <= (baseline.handles.TCPSocketWrap ?? 0)
        );
      };
      await eventually(settled, 10_000).catch(() => {});
      const now = resources();
      expect(now.fds).toBeLessThanOrEqual(baseline.fds);
      for (const kind of ['TCPSocketWrap', 'TCPServerWrap', 'Timeout']) {
        expect(now.handles[kind] ?? 0, kind).toBeLessThanOrEqual(baseline.handles[kind] ?? 0);
      }
      // afterAll closes again: both are idempotent.
    },
    TIMEOUT,
  );
});
