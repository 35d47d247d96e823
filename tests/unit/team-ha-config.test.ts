// The config of team mode's highly available forms (issue 34): `state.redis.cluster`,
// `state.redis.sentinels` with `name`, and `BREAKWATER_REDIS_CLUSTER`. Hostile shapes get a
// clear error naming the field; a password never appears in an error or the log line.
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/main/engine/config/validate';
import { clusterLayout, plainLayout } from '../../src/main/engine/state/redis-keys';
import { describeTarget, targetOf } from '../../src/main/engine/state/redis-target';

const redis = (r: unknown) => validateConfig({ state: { backend: 'redis', redis: r } }).state;
const SECRET = 's3cret-pass-0123';

describe('state.redis: cluster and sentinels', () => {
  it('takes Cluster seeds (TLS and ACL credentials in the URLs) and a Sentinel group', () => {
    const seeds = [`rediss://bw:${SECRET}@10.0.0.1:7000`, `rediss://bw:${SECRET}@[::1]:7001`];
    expect(redis({ cluster: seeds, keyPrefix: 'team:' })).toEqual({
      backend: 'redis',
      redis: { cluster: seeds, keyPrefix: 'team:' },
    });
    const sentinel = {
      sentinels: ['s1.internal:26379', '10.0.0.2:26379'],
      name: 'bw-master',
      sentinelPassword: SECRET,
      username: 'bw',
      password: SECRET,
    };
    expect(redis(sentinel)).toEqual({ backend: 'redis', redis: sentinel });
  });

  it.each([
    [
      { url: 'redis://h:6379', cluster: ['redis://h:7000'] },
      /state.redis.cluster: cannot be combined with url/,
    ],
    [
      { url: 'redis://h:6379', sentinels: ['h:26379'], name: 'm' },
      /state.redis.sentinels: cannot be combined with url/,
    ],
    [
      { cluster: ['redis://h:7000'], sentinels: ['h:26379'], name: 'm' },
      /cannot be combined with cluster/,
    ],
    [{ cluster: [] }, /state.redis.cluster: must list at least one node/],
    [{ cluster: 'redis://h:7000' }, /state.redis.cluster: must be an array/],
    [{ cluster: [null] }, /state.redis.cluster\[0\]: must be a non-empty string/],
    [{ cluster: [{ host: 'h' }] }, /state.redis.cluster\[0\]: must be a non-empty string/],
    [{ cluster: ['h:7000'] }, /state.redis.cluster\[0\]: must start with redis:\/\//],
    [{ cluster: ['redis://h'] }, /state.redis.cluster\[0\]: needs a port/],
    [
      { cluster: ['redis://h:99999'] },
      /state.redis.cluster\[0\]: (needs a port|is not a valid URL)/,
    ],
    [{ cluster: ['redis://h:7000/2'] }, /state.redis.cluster\[0\]: must not name a database/],
    [
      { cluster: ['redis://h_x!:7000'] },
      /state.redis.cluster\[0\]: (needs a host|is not a valid URL)/,
    ],
    [
      { cluster: ['redis://a:7000', 'rediss://b:7000'] },
      /state.redis.cluster\[1\]: must use the scheme and credentials/,
    ],
    [
      { cluster: Array.from({ length: 65 }, (_, i) => `redis://h:${7000 + i}`) },
      /at most 64 nodes/,
    ],
    [{ sentinels: ['h:26379'] }, /state.redis.name: must be a non-empty string/],
    [{ sentinels: [], name: 'm' }, /state.redis.sentinels: must list at least one node/],
    [{ sentinels: ['h'], name: 'm' }, /state.redis.sentinels\[0\]: must be host:port/],
    [{ sentinels: ['h:0'], name: 'm' }, /state.redis.sentinels\[0\]: needs a port/],
    [{ sentinels: ['h:x'], name: 'm' }, /state.redis.sentinels\[0\]: needs a port/],
    [{ sentinels: ['redis://h:26379'], name: 'm' }, /state.redis.sentinels\[0\]: needs a host/],
    [{ sentinels: ['$(rm -rf):1'], name: 'm' }, /state.redis.sentinels\[0\]: needs a host/],
    [{ sentinels: ['h:26379'], name: 'a b' }, /state.redis.name: must be the master group/],
    [
      { sentinels: ['h:26379'], name: 'm', sentinelPassword: 7 },
      /state.redis.sentinelPassword: must be a non-empty string/,
    ],
    [{ url: 'redis://h:6379', name: 'm' }, /state.redis.name: is only allowed with sentinels/],
    [
      { cluster: ['redis://h:7000'], password: SECRET },
      /state.redis.password: is only allowed with sentinels/,
    ],
    [{ cluster: ['redis://h:7000'], keyPrefix: 'a{b}' }, /state.redis.keyPrefix/],
  ])('refuses %j', (r, message) => {
    const run = () => redis(r);
    expect(run).toThrow(message);
    try {
      run();
    } catch (err) {
      expect(String(err)).not.toContain(SECRET);
    }
  });

  it('a seed with a password that is refused does not echo the password', () => {
    expect(() => redis({ cluster: [`redis://u:${SECRET}@h:7000/1`] })).toThrow(
      /must not name a database/,
    );
    expect(() => redis({ cluster: [`redis://u:${SECRET}@h:7000/1`] })).not.toThrow(SECRET);
  });
});

describe('where Redis is: the environment wins, credentials stay out of the log', () => {
  it('BREAKWATER_REDIS_CLUSTER is a comma list of seeds and turns team mode on', () => {
    const env = {
      BREAKWATER_REDIS_CLUSTER: ` redis://:${SECRET}@a:7000, redis://:${SECRET}@b:7001,`,
    };
    const t = targetOf({ url: 'redis://file:6379' }, env);
    expect(t).toEqual({
      kind: 'cluster',
      seeds: [`redis://:${SECRET}@a:7000`, `redis://:${SECRET}@b:7001`],
    });
    expect(describeTarget(t!)).not.toContain(SECRET);
    expect(describeTarget(t!)).toContain('a:7000');
  });

  it('refuses both variables, and a garbage cluster list, naming the variable only', () => {
    expect(() =>
      targetOf(undefined, {
        BREAKWATER_REDIS_URL: 'redis://h',
        BREAKWATER_REDIS_CLUSTER: 'redis://h:1',
      }),
    ).toThrow(/BREAKWATER_REDIS_URL or BREAKWATER_REDIS_CLUSTER, not both/);
    for (const bad of [',,,', 'h:7000', `redis://u:${SECRET}@h`, 'redis://h:7000,garbage']) {
      let message = '';
      try {
        targetOf(undefined, { BREAKWATER_REDIS_CLUSTER: bad });
      } catch (err) {
        message = String(err);
      }
      expect(message).toMatch(/invalid environment: BREAKWATER_REDIS_CLUSTER/);
      expect(message).not.toContain(SECRET);
    }
  });

  it('the Sentinel form is described by its group and addresses, not its passwords', () => {
    const t = targetOf(
      { sentinels: ['s:26379'], name: 'grp', sentinelPassword: SECRET, password: SECRET },
      {},
    );
    expect(t?.kind).toBe('sentinel');
    expect(describeTarget(t!)).toBe('Sentinel, master group grp via s:26379');
  });
});

describe('key layout', () => {
  it('a single Redis keeps the names of earlier versions', () => {
    const k = plainLayout('redis://h:6379', 'bw:');
    expect(k.record('health', 'c1')).toEqual({ key: 'bw:rec:health:c1', channel: 'bw:changes' });
    expect(k.lease('c1')).toBe('bw:lease:c1');
    expect(k.counter('budget:k:requests:1')).toBe('bw:count:budget:k:requests:1');
    expect(k.queue('p/c')).toBe('bw:queue:p/c');
  });

  it('a Cluster puts what one script touches under one hash tag, and spreads the rest', () => {
    const k = clusterLayout('bw:');
    const tag = (key: string) => /\{([^}]*)\}/.exec(key)?.[1];
    // A record and the channel its script announces on: one slot.
    const r = k.record('health', 'c1');
    expect(tag(r.key)).toBe(tag(r.channel));
    const s = k.semaphore('c1');
    expect(tag(s.key)).toBe(tag(s.channel));
    // Every lease key under one tag (a claim names any previous connection).
    expect(tag(k.lease('a'))).toBe(tag(k.owner('x')));
    // A key's four counters under one tag; another key's elsewhere (most likely).
    const ids = ['requests:1', 'tokens:2', 'usd:2', 'usd-month:3'].map((w) =>
      k.counter(`budget:key1:${w}`),
    );
    expect(new Set(ids.map(tag)).size).toBe(1);
    // Records spread over the groups, and every group's channels are subscribed.
    const groups = new Set(
      Array.from({ length: 200 }, (_, i) => tag(k.record('health', `c${i}`).key)),
    );
    expect(groups.size).toBe(16);
    expect(k.changeChannels).toHaveLength(16);
    expect(tag(k.queue('p/c'))).toMatch(/^q/);
  });
});
