// The roll-up and the metrics find a request's bucket or series without making its key when
// they have seen its dimensions lately (rollup.ts `recentBucket`, metrics.ts `requestSeries`,
// `modelSeries`). Whatever the order of samples, flushes and failed writes, the sums must be
// those of a plain grouping by every dimension.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UsageBucket, UsageRollupRepo } from '../../src/main/engine/store';
import type { UsageSample } from '../../src/main/engine/usage/accounting';
import { MAX_MODEL_SERIES, RequestMetrics, TOKEN_KINDS } from '../../src/main/engine/usage/metrics';
import { UsageRollup } from '../../src/main/engine/usage/rollup';

const DIMS = ['provider', 'connection', 'model', 'combo', 'keyName', 'session'] as const;

const sampleArb: fc.Arbitrary<UsageSample> = fc.record({
  // Three minutes, so a run of samples crosses a minute's edge.
  at: fc.integer({ min: 0, max: 3 * 60_000 - 1 }),
  provider: fc.constantFrom('', 'open', 'anth'),
  connection: fc.constantFrom('', 'c1', 'c2'),
  model: fc.constantFrom('m1', 'm2', 'other', 'm\u0000x'),
  combo: fc.constantFrom('', 'coder'),
  keyName: fc.constantFrom('', 'k1'),
  session: fc.constantFrom('', 's1', 's2'),
  inputTokens: fc.nat(1000),
  outputTokens: fc.nat(1000),
  cacheReadTokens: fc.nat(100),
  cacheWriteTokens: fc.nat(100),
  reasoningTokens: fc.nat(100),
  costUsd: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
  error: fc.boolean(),
  estimated: fc.boolean(),
});

type Step = { kind: 'add'; sample: UsageSample } | { kind: 'flush'; fails: boolean };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: sampleArb.map((sample) => ({ kind: 'add' as const, sample })) },
  { weight: 1, arbitrary: fc.boolean().map((fails) => ({ kind: 'flush' as const, fails })) },
);

const keyOf = (b: Pick<UsageBucket, 'minute' | (typeof DIMS)[number]>) =>
  JSON.stringify([b.minute, ...DIMS.map((d) => b[d])]);

const SUMMED = [
  'requests',
  'errors',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'reasoningTokens',
  'estimated',
] as const;

function sums(buckets: Iterable<UsageBucket>): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const b of buckets) {
    const had = out.get(keyOf(b));
    out.set(
      keyOf(b),
      SUMMED.map((k, i) => (had?.[i] ?? 0) + b[k]),
    );
  }
  return out;
}

describe('the usage roll-up', () => {
  it('sums every sample into the bucket of its minute and dimensions', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 200 }), (steps) => {
        const written: UsageBucket[] = [];
        let failNext = false;
        const repo = {
          add(buckets: readonly UsageBucket[]) {
            if (failNext) {
              failNext = false;
              throw new Error('disk full');
            }
            // Copies: the roll-up must not keep adding to a bucket it handed over.
            for (const b of buckets) written.push({ ...b });
          },
          prune() {},
        } as unknown as UsageRollupRepo;
        const rollup = new UsageRollup({ repo, now: () => 0, onError: () => {} });
        const expected: UsageBucket[] = [];
        for (const step of steps) {
          if (step.kind === 'flush') {
            failNext = step.fails;
            rollup.flush();
            continue;
          }
          const s = step.sample;
          rollup.add(s);
          expected.push({
            ...s,
            minute: s.at - (s.at % 60_000),
            requests: 1,
            errors: s.error ? 1 : 0,
            costUsd: s.costUsd ?? 0,
            estimated: s.estimated ? 1 : 0,
          });
        }
        failNext = false;
        rollup.close();
        expect(sums(written)).toEqual(sums(expected));
        // One row per bucket and flush: a bucket is never written twice in one batch.
        expect(rollup.dropped).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});

/** `name{labels} value` lines of one family, as label text → value. */
function family(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(name.length, at), Number(line.slice(at + 1)));
  }
  return out;
}

describe('the request metrics', () => {
  it('count each request in its connection and status class, and its tokens by model', () => {
    const observed = fc.record({
      sample: sampleArb,
      status: fc.constantFrom(200, 201, 299, 400, 429, 500, 503, 0),
    });
    fc.assert(
      fc.property(fc.array(observed, { maxLength: 150 }), (seen) => {
        const m = new RequestMetrics();
        const requests = new Map<string, number>();
        const tokens = new Map<string, number>();
        for (const { sample: s, status } of seen) {
          m.observe({ status, errorClass: null, latencyMs: 1, ttfbMs: null }, s);
          const p = s.provider || 'none';
          const k = `{provider="${p}",connection="${s.connection || 'none'}",code="${Math.floor(status / 100)}xx"}`;
          requests.set(k, (requests.get(k) ?? 0) + 1);
          if (!s.provider) continue;
          for (const [type, field] of TOKEN_KINDS) {
            if (s[field] <= 0) continue;
            const t = `{provider="${p}",model="${s.model}",type="${type}"}`;
            tokens.set(t, (tokens.get(t) ?? 0) + s[field]);
          }
        }
        const text = m.text();
        expect(family(text, 'breakwater_requests_total')).toEqual(requests);
        expect(family(text, 'breakwater_tokens_total')).toEqual(tokens);
      }),
      { numRuns: 300 },
    );
  });

  it('share the `other` series past the cap, for a model first seen there, across providers', () => {
    const m = new RequestMetrics();
    const base = {
      at: 0,
      connection: 'c',
      combo: '',
      keyName: '',
      session: '',
      inputTokens: 1,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      costUsd: null,
      error: false,
      estimated: false,
    };
    const ok = { status: 200, errorClass: null, latencyMs: 1, ttfbMs: null };
    for (let i = 0; i < MAX_MODEL_SERIES; i++)
      m.observe(ok, { ...base, provider: 'a', model: `m${i}` });
    // Past the cap: again and again the same invented name, on two providers, and a named one.
    for (let i = 0; i < 3; i++) {
      m.observe(ok, { ...base, provider: 'a', model: 'late' });
      m.observe(ok, { ...base, provider: 'b', model: 'late' });
      m.observe(ok, { ...base, provider: 'a', model: 'm0' });
    }
    const t = family(m.text(), 'breakwater_tokens_total');
    expect(t.get('{provider="a",model="other",type="input"}')).toBe(3);
    expect(t.get('{provider="b",model="other",type="input"}')).toBe(3);
    expect(t.get('{provider="a",model="m0",type="input"}')).toBe(4);
    expect([...t.keys()].some((k) => k.includes('late'))).toBe(false);
    expect(t.size).toBe(MAX_MODEL_SERIES + 2);
  });
});
