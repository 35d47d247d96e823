// Crash recovery: `breakwater serve` from the built CLI is killed with SIGKILL under mixed proxy
// load and admin writes, then started again on the same data dir. After every kill the database
// passes `PRAGMA integrity_check`, every write the admin API acknowledged is there, and a lease
// generation is never handed out twice. `npm test` kills 3 times, `npm run test:chaos` 20.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, killCliRuns, listening, runCli } from '../support/cli-run';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import { standardConfig } from '../support/gateway';
import { LONG, scale } from './support/harness';

const ROOT = resolve(__dirname, '../..');
const ADMIN_TOKEN = 'chaos-admin-token-0123456789abcdef';
const LEASE_KEY = 'bw-chaos-lease-key-0123456789';
const KILLS = scale(3, 20);

let up: FakeUpstream;
let dir: string;
let configFile: string;
let agent: Agent;
const figures = { kills: 0, requests: 0, acknowledgedWrites: 0, lost: 0, generations: 0 };

beforeAll(async () => {
  // The built CLI is what users run; build it when src/ is newer (as `npm run serve` does).
  const built = spawnSync(
    process.execPath,
    ['-e', "import('./scripts/build-if-stale.mjs').then((m) => m.buildIfStale(m.SERVE_OUTPUTS))"],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
  up = await startFakeUpstream();
  dir = mkdtempSync(join(tmpdir(), 'bw-crash-'));
  configFile = join(dir, 'breakwater.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      ...standardConfig(up, up),
      gateway: {
        apiKeys: [
          {
            name: 'agent',
            key: LEASE_KEY,
            scopes: ['lease:exclusive'],
            allowedConnections: ['oa-1', 'oa2-1'],
          },
        ],
      },
    }),
  );
  agent = new Agent({ keepAliveTimeout: 500 });
}, 300_000);

afterAll(async () => {
  killCliRuns();
  await agent.close();
  await up.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(`crash ${LONG ? 'long' : 'short'} run: ${JSON.stringify(figures)}`);
});

async function serve(dataDir: string): Promise<CliRun & { url: string }> {
  const run = runCli(
    ['serve', '--config', configFile, '--port', '0', '--data-dir', dataDir],
    { ...process.env, BREAKWATER_ADMIN_TOKEN: ADMIN_TOKEN },
    true,
  );
  return { ...run, url: await listening(run, 20_000) };
}

async function call(
  url: string,
  path: string,
  body: unknown,
  auth: string,
): Promise<{ status: number; json: unknown }> {
  const res = await request(`${url}${path}`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${auth}` },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.statusCode, json };
}

describe('crash recovery: kill -9 under load and admin writes', () => {
  it(`${KILLS} kills: integrity ok, no acknowledged write lost, no lease generation reused`, async () => {
    const dataDir = join(dir, 'data');
    const combos: string[] = [];
    let owner: string | null = null;
    let highestGeneration = 0;
    for (let round = 0; round < KILLS; round++) {
      const { child, exited, url } = await serve(dataDir);
      let stop = false;
      const proxy = async () => {
        for (let i = 0; !stop; i++) {
          figures.requests++;
          await call(
            url,
            '/v1/chat/completions',
            { model: 'coder', stream: i % 2 === 0, messages: [{ role: 'user', content: 'hi' }] },
            LEASE_KEY,
          ).catch(() => {});
        }
      };
      const writes = async () => {
        for (let i = 0; !stop; i++) {
          const name = `crash-${round}-${i}`;
          const made = await call(
            url,
            '/api/combos',
            { name, strategy: 'priority', targets: ['oa/gpt-test'] },
            ADMIN_TOKEN,
          ).catch(() => null);
          if (made?.status === 201) combos.push(name);
          const reset = await call(url, '/api/resilience/reset', {}, ADMIN_TOKEN).catch(() => null);
          if (reset?.status === 200) figures.acknowledgedWrites++;
        }
      };
      const leases = async () => {
        while (!stop) {
          const got = await call(
            url,
            '/api/v1/session-leases',
            owner ? { action: 'acquire', owner } : { action: 'acquire' },
            LEASE_KEY,
          ).catch(() => null);
          if (got?.status !== 200) continue;
          const lease = got.json as { owner?: string; generation: number };
          // Handed out after a crash: it must be newer than every generation acknowledged before.
          expect(lease.generation).toBeGreaterThan(highestGeneration);
          highestGeneration = lease.generation;
          figures.generations++;
          owner ??= lease.owner ?? null;
        }
      };
      const running = Promise.all([proxy(), proxy(), proxy(), writes(), leases()]);
      await new Promise((r) => setTimeout(r, 400 + Math.random() * 1100));
      child.kill('SIGKILL');
      await exited;
      stop = true;
      await running;
      figures.kills++;

      const db = new Database(join(dataDir, 'breakwater.db'));
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        const stored = new Set(
          (db.prepare('SELECT name FROM combos').all() as { name: string }[]).map((r) => r.name),
        );
        const lost = combos.filter((n) => !stored.has(n));
        figures.lost += lost.length;
        expect(lost).toEqual([]);
      } finally {
        db.close();
      }
    }
    figures.acknowledgedWrites += combos.length;
    expect(figures.generations).toBeGreaterThan(0);
  }, 600_000);
});
