// Team mode on a Redis Cluster over TLS with an ACL password (issue 34): two `breakwater serve`
// processes on `rediss://` seeds connect, verify the nodes' certificate (trusted here through
// NODE_EXTRA_CA_CERTS, as an operator would add a private CA) and share a cooldown; one that
// does not trust the certificate stays on local state, degraded.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCert } from '../../scripts/redis-server.mjs';
import type { BreakwaterConfig } from '../../src/shared/contract';
import { killCliRuns } from '../support/cli-run';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import { haRedisMissing, startRedisCluster, type TestHaRedis } from '../support/redis';
import { chat, startInstance, type TeamInstance, until } from '../support/team';

const root = mkdtempSync(join(tmpdir(), 'bw-team-tls-'));
const cert = haRedisMissing() ? null : selfSignedCert(root);
const missing = haRedisMissing() ?? (cert ? null : 'openssl is not installed');
// Skipped: nothing to clean up later.
if (missing) rmSync(root, { recursive: true, force: true });
const PASSWORD = 'tls-pass-0123456789';

describe.skipIf(missing !== null)(
  `team mode on a Redis Cluster over TLS${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let redis: TestHaRedis;
    let fake: FakeUpstream;
    const instances: TeamInstance[] = [];
    let config: BreakwaterConfig;

    /** An instance whose process trusts the certificate (or not). */
    async function start(name: string, trusted: boolean): Promise<TeamInstance> {
      const saved = process.env.NODE_EXTRA_CA_CERTS;
      if (trusted) process.env.NODE_EXTRA_CA_CERTS = cert!.cert;
      else delete process.env.NODE_EXTRA_CA_CERTS;
      try {
        const i = await startInstance(name, root, config, { ...redis.config, keyPrefix: 'tls:' });
        instances.push(i);
        return i;
      } finally {
        if (saved === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
        else process.env.NODE_EXTRA_CA_CERTS = saved;
      }
    }

    beforeAll(async () => {
      redis = await startRedisCluster({ password: PASSWORD, tls: cert! });
      fake = await startFakeUpstream({ models: ['m'] });
      config = {
        providers: [
          {
            id: 'tl',
            format: 'openai',
            baseUrl: `${fake.url}/v1`,
            authClass: 'api_key',
            connections: [{ id: 'tl-1', apiKey: 'sk-test-tls-0123456789abcdef' }],
            models: ['m'],
          },
        ],
        // Answer at once rather than wait out the Retry-After (the quota wait has its own tests).
        resilience: { 'quotaWait.maxWaitMs': 0, 'comboCooldownWait.enabled': false },
      };
    }, 60_000);

    afterAll(async () => {
      await Promise.all(instances.map((i) => i.stop()));
      killCliRuns();
      await fake?.close();
      await redis?.close();
      rmSync(root, { recursive: true, force: true });
    });

    it('rediss:// seeds with a password: both connect and share a cooldown', async () => {
      expect(redis.config.cluster?.every((s) => s.startsWith('rediss://'))).toBe(true);
      const [a, b] = await Promise.all([start('a', true), start('b', true)]);
      for (const i of [a, b])
        await until(
          `${i.name} connected`,
          async () => (await i.team())?.status === 'connected',
          15_000,
        );
      fake.script({ status: 429, headers: { 'retry-after': '30' } });
      // Retried or not, the request is answered; the 429 it met cools tl-1.
      await chat(a.url, 'tl/m', {});
      await until('B sees tl-1 cooling', async () => {
        const c = (await b.state()).connections.find((x) => x.id === 'tl-1');
        return c?.status === 'unavailable';
      });
      for (const i of [a, b]) expect(i.run.stderr()).not.toContain(PASSWORD);
    }, 60_000);

    it('an instance that does not trust the certificate stays degraded, serving', async () => {
      const c = await start('c', false);
      await new Promise((r) => setTimeout(r, 2_000));
      expect((await c.team())?.status).toBe('degraded');
      fake.setDefault({ status: 200 });
      expect((await chat(c.url, 'tl/m', {})).status).toBeLessThan(500);
      expect(c.run.stderr()).not.toContain(PASSWORD);
    }, 30_000);
  },
);
