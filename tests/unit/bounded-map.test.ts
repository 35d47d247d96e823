import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedMap, BoundedMaps, RecentValues } from '../../src/main/engine/bounded-map';

const ops = fc.array(
  fc.oneof(
    fc.record({ op: fc.constant('set' as const), key: fc.nat(20), value: fc.integer() }),
    fc.record({ op: fc.constant('get' as const), key: fc.nat(20) }),
    fc.record({ op: fc.constant('delete' as const), key: fc.nat(20) }),
    fc.record({ op: fc.constant('advance' as const), ms: fc.nat(400) }),
    fc.record({ op: fc.constant('sweep' as const) }),
  ),
  { maxLength: 300 },
);

function recorded(maxEntries: number, ttl: () => number, dropped: string[] = []) {
  return new BoundedMap<string, number>({
    name: 'm',
    maxEntries,
    ttlMs: ttl,
    onDrop: (k) => dropped.push(k),
  });
}

describe('BoundedMap', () => {
  it('never holds more than its cap, never answers a value past its TTL or overwritten, keeps the most recent live ones, and counts every drop', () => {
    fc.assert(
      fc.property(
        ops,
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 1000 }),
        (list, cap, ttl) => {
          let now = 0;
          const map = new BoundedMap<number, number>({
            name: 'm',
            maxEntries: cap,
            ttlMs: () => ttl,
          });
          // The reference: every write, newest last.
          let writes: { key: number; value: number; at: number }[] = [];
          let inserted = 0;
          let deleted = 0;
          for (const o of list) {
            if (o.op === 'set') {
              if (map.get(o.key, now) === undefined) inserted++;
              map.set(o.key, o.value, now);
              writes = writes.filter((w) => w.key !== o.key);
              writes.push({ key: o.key, value: o.value, at: now });
            } else if (o.op === 'delete') {
              if (map.delete(o.key)) deleted++;
              writes = writes.filter((w) => w.key !== o.key);
            } else if (o.op === 'advance') now += o.ms;
            else if (o.op === 'sweep') {
              map.sweep(now);
              expect(map.size).toBe([...map.entries(now)].length);
            } else {
              const got = map.get(o.key, now);
              const w = writes.find((x) => x.key === o.key);
              const live = w !== undefined && w.at + ttl > now;
              if (got !== undefined) expect(live && got === w.value).toBe(true);
              const rank = writes.length - writes.findIndex((x) => x.key === o.key);
              if (live && rank <= cap) expect(got).toBe(w.value);
            }
            expect(map.size).toBeLessThanOrEqual(cap);
            const s = map.stats();
            expect(s.size + s.expired + s.evicted + deleted).toBe(inserted);
          }
        },
      ),
    );
  });

  it('reads its TTL on every check, so a shorter setting expires what is older at once', () => {
    let ttl = 1000;
    const dropped: string[] = [];
    const map = recorded(10, () => ttl, dropped);
    map.set('a', 1, 0);
    map.set('b', 2, 500);
    ttl = 400;
    map.sweep(500);
    expect([...map.entries(500)]).toEqual([['b', 2]]);
    expect(dropped).toEqual(['a']);
    expect(map.stats()).toMatchObject({ size: 1, expired: 1, evicted: 0 });
  });

  it('drops the least recently written entry past the cap and tells onDrop', () => {
    const dropped: string[] = [];
    const map = recorded(2, () => 1e9, dropped);
    map.set('a', 1, 0);
    map.set('b', 2, 0);
    map.set('a', 3, 0);
    map.set('c', 4, 0);
    expect([...map.entries(0)]).toEqual([
      ['a', 3],
      ['c', 4],
    ]);
    expect(dropped).toEqual(['b']);
    expect(map.stats().evicted).toBe(1);
  });

  it('a registry sweeps every map it made, on its own clock, and lists their figures', () => {
    let now = 0;
    const maps = new BoundedMaps(() => now);
    const a = maps.create<string, number>({ name: 'a', maxEntries: 5, ttlMs: () => 10 });
    const b = maps.create<string, number>({ name: 'b', maxEntries: 5, ttlMs: () => 100 });
    a.set('x', 1, now);
    b.set('y', 1, now);
    now = 50;
    maps.sweep();
    expect(maps.stats()).toEqual([
      { name: 'a', size: 0, capacity: 5, expired: 1, evicted: 0 },
      { name: 'b', size: 1, capacity: 5, expired: 0, evicted: 0 },
    ]);
  });
});

describe('RecentValues', () => {
  it('works a value out once per key, keeps null answers too, and empties itself whole when full', () => {
    const made: string[] = [];
    const values = new RecentValues(3, (k: string) => {
      made.push(k);
      return k === 'bad' ? null : { k };
    });
    const a = values.get('a');
    expect(values.get('a')).toBe(a);
    expect(values.get('bad')).toBeNull();
    expect(values.get('bad')).toBeNull();
    expect(made).toEqual(['a', 'bad']);
    values.get('b');
    values.get('c'); // the cap (3) is reached: emptied before `c` goes in
    expect(values.get('a')).not.toBe(a);
    expect(made).toEqual(['a', 'bad', 'b', 'c', 'a']);
  });
});
