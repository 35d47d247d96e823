import { describe, expect, it } from 'vitest';
import { BoundedMaps } from '../../src/main/engine/bounded-map';
import {
  DIGEST_BYTES,
  type PromptBlocks,
  promptBlocks,
} from '../../src/main/engine/translate/prompt-blocks';
import {
  type CacheTurnInput,
  CacheWatch,
  MAX_TURNS,
} from '../../src/main/engine/usage/cache-watch';

const T0 = 1_700_000_000_000;
const MIN = 60_000;

function turn(over: Partial<CacheTurnInput> = {}): CacheTurnInput {
  return {
    at: T0,
    model: 'claude',
    connection: 'an-1',
    target: 'an/claude',
    promptTokens: 5000,
    readTokens: 4000,
    writeTokens: 500,
    blocks: blocks('t', 's', 'u1'),
    ttlMs: 5 * MIN,
    moved: null,
    ...over,
  };
}

/** Blocks as the cache watch gets them: a name per block stands for its digest. */
function blocks(...names: string[]): Buffer {
  const out = Buffer.alloc(names.length * DIGEST_BYTES);
  names.forEach((n, i) => {
    out.write(n.padEnd(DIGEST_BYTES, '.').slice(0, DIGEST_BYTES), i * DIGEST_BYTES);
  });
  return out;
}

const watch = (ratio = 0.5) => new CacheWatch(new BoundedMaps(() => T0), () => ratio);

describe('cache loss made visible: a turn reading under half of what the previous turn cached', () => {
  it('a steady session has no loss, and its hit rate is its reads over its prompts', () => {
    const w = watch();
    expect(w.note('s', turn({ readTokens: 0, writeTokens: 4500 }), T0)).toBeNull();
    expect(
      w.note('s', turn({ at: T0 + MIN, blocks: blocks('t', 's', 'u1', 'a1', 'u2') }), T0),
    ).toBeNull();
    const view = w.view('s', 'claude', T0)!;
    expect(view.turns).toBe(2);
    expect(view.hitRate).toBeCloseTo(4000 / 10000);
    expect(view.history.map((t) => t.lost)).toEqual([null, null]);
  });

  it('moved to another key: names both, and what moved it', () => {
    const w = watch();
    w.note('s', turn(), T0);
    const loss = w.note(
      's',
      turn({
        connection: 'an-2',
        readTokens: 0,
        moved: { from: 'an-1', why: 'failover: HTTP 503' },
      }),
      T0,
    )!;
    expect(loss).toMatchObject({ reason: 'moved', turn: 2, expectedTokens: 4500, readTokens: 0 });
    expect(loss.detail).toBe('session moved from an-1 to an-2: failover: HTTP 503');
    expect(w.view('s', 'claude', T0)!.history[1]).toMatchObject({
      lost: 'moved',
      detail: loss.detail,
    });
  });

  it('moved with no pin to hold it, or to another target', () => {
    const w = watch();
    w.note('s', turn(), T0);
    expect(
      w.note('s', turn({ connection: 'an-2', readTokens: 10, writeTokens: 4500 }), T0)!.detail,
    ).toContain('no session pin');
    const other = w.note('s', turn({ connection: 'oa-1', target: 'oa/gpt', readTokens: 0 }), T0);
    expect(other!.detail).toContain('an/claude (an-2) to oa/gpt (oa-1)');
  });

  it('prefix changed: the first differing block', () => {
    const w = watch();
    w.note('s', turn(), T0);
    const loss = w.note('s', turn({ readTokens: 100, blocks: blocks('t', 'S2', 'u1', 'a1') }), T0)!;
    expect(loss.reason).toBe('prefix_changed');
    expect(loss.detail).toContain('first differing block: system prompt');
    w.note('s', turn({ blocks: blocks('t', 's', 'u1', 'a1', 'u2') }), T0);
    expect(
      w.note('s', turn({ readTokens: 0, blocks: blocks('t', 's', 'u9') }), T0)!.detail,
    ).toContain('turn 1');
  });

  it('TTL passed: the idle time and the TTL', () => {
    const w = watch();
    w.note('s', turn(), T0);
    const loss = w.note('s', turn({ at: T0 + 6 * MIN, readTokens: 0 }), T0)!;
    expect(loss.reason).toBe('ttl_expired');
    expect(loss.detail).toBe("360 s since the previous turn, past the cache's 300 s TTL");
  });

  it("a side request on another model (an agent's title or summary call) is watched apart", () => {
    const w = watch();
    w.note('s', turn(), T0);
    expect(w.note('s', turn({ model: 'haiku', readTokens: 0, writeTokens: 0 }), T0)).toBeNull();
    expect(w.note('s', turn({ at: T0 + MIN }), T0)).toBeNull();
    expect(w.view('s', 'haiku', T0)!.turns).toBe(1);
  });

  it('no visible cause: unknown (evicted)', () => {
    const w = watch();
    w.note('s', turn(), T0);
    expect(w.note('s', turn({ readTokens: 0 }), T0)!.reason).toBe('unknown');
  });

  it('not judged below the providers’ minimum cacheable prompt, nor at exactly the threshold', () => {
    const w = watch();
    w.note('s', turn({ readTokens: 500, writeTokens: 400 }), T0);
    expect(w.note('s', turn({ readTokens: 0 }), T0)).toBeNull();
    expect(w.note('s', turn({ readTokens: 2250, writeTokens: 0 }), T0)).toBeNull();
  });

  it('keeps the last turns of a session and a bounded number of sessions', () => {
    const w = watch();
    for (let i = 0; i < MAX_TURNS + 10; i++) w.note('s', turn(), T0);
    const view = w.view('s', 'claude', T0)!;
    expect(view.history).toHaveLength(MAX_TURNS);
    expect(view.turns).toBe(MAX_TURNS + 10);
    expect(view.history.at(-1)!.turn).toBe(MAX_TURNS + 10);
    for (let i = 0; i < 2_100; i++) w.note(`s${i}`, turn(), T0);
    expect(w.views(T0, 10_000).length).toBeLessThanOrEqual(2_000);
    expect(w.view('s0', 'claude', T0)).toBeNull();
  });
});

/** The digests of a body as an SDK sends it (compact JSON). */
function blocksOf(body: unknown): PromptBlocks {
  const b = promptBlocks(Buffer.from(JSON.stringify(body)));
  if (!b) throw new Error('not an object');
  return b;
}

describe('prompt blocks: tools, system, each turn; breakpoints do not count', () => {
  it('moving a breakpoint changes no digest; changing the system prompt changes its own', () => {
    const a = blocksOf({
      system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        },
      ],
    });
    const b = blocksOf({
      system: [{ type: 'text', text: 'sys' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    expect(a.digests).toEqual(b.digests);
    expect(a.hourTtl).toBe(true);
    expect(b.hourTtl).toBe(false);
    const c = blocksOf({ system: 'other', messages: [{ role: 'user', content: 'hi' }] });
    expect(c.digests.subarray(6, 12).equals(b.digests.subarray(6, 12))).toBe(false);
    expect(c.digests.subarray(12).equals(b.digests.subarray(12))).toBe(false);
  });

  it('a history longer than 1 024 blocks is digested on its first blocks only', () => {
    const messages = Array.from({ length: 5000 }, (_, i) => ({ role: 'user', content: `m${i}` }));
    expect(blocksOf({ messages }).digests.length).toBe(1024 * DIGEST_BYTES);
  });

  it('Responses input as a string, Gemini contents, garbage: no throw', () => {
    expect(blocksOf({ input: 'hi', instructions: 'x' }).digests.length / DIGEST_BYTES).toBe(3);
    const gemini = blocksOf({ contents: [{ parts: [] }], systemInstruction: {} });
    expect(gemini.digests.length / DIGEST_BYTES).toBe(3);
    expect(blocksOf({ messages: null, tools: 5 }).digests.length / DIGEST_BYTES).toBe(2);
  });
});

describe('prompt blocks from the bytes', () => {
  it('refuses what is not a JSON object, and a truncated one', () => {
    for (const text of ['', 'null', '[1]', '"x"', '{"messages":[{"role":"user"', 'garbage'])
      expect(promptBlocks(Buffer.from(text))).toBeNull();
  });

  it('reads the last of a repeated member and its escaped spelling, as JSON.parse does', () => {
    const plain = blocksOf({ system: 'b', messages: [{ role: 'user', content: 'hi' }] });
    const twice = promptBlocks(
      Buffer.from('{"system":"a","messages":[{"role":"user","content":"hi"}],"syst\\u0065m":"b"}'),
    );
    expect(twice?.digests).toEqual(plain.digests);
  });

  it('a block is the same digest whatever its neighbours; the prompt_cache_retention is read', () => {
    const m = { role: 'user', content: 'same' };
    const a = blocksOf({ messages: [m, { role: 'assistant', content: 'x' }] });
    const b = blocksOf({
      prompt_cache_retention: '24h',
      messages: [m, { role: 'user', content: 'y' }],
    });
    expect(a.digests.subarray(12, 18)).toEqual(b.digests.subarray(12, 18));
    expect(a.digests.subarray(18)).not.toEqual(b.digests.subarray(18));
    expect(b.retention).toBe('24h');
    expect(a.retention).toBeUndefined();
  });

  it('deeply nested and large turns: no throw, one digest each', () => {
    const deep = `${'['.repeat(100_000)}"leaf"${']'.repeat(100_000)}`;
    const text = `{"messages":[${deep},{"role":"user","content":"${'x'.repeat(2_000_000)}"}]}`;
    expect(promptBlocks(Buffer.from(text))?.digests.length).toBe(4 * DIGEST_BYTES);
  });
});
