// A real redis-server for team-mode tests: on a free loopback port, in a temporary directory,
// without persistence. It can be stopped and started again on the same port (a Redis outage).
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, haveRedisServer, spawnRedisServer } from '../../scripts/redis-server.mjs';

/** Why team-mode tests cannot run here (no redis-server binary), or null when they can. */
export function redisMissing(): string | null {
  return haveRedisServer()
    ? null
    : 'redis-server is not installed (Debian: apt-get install redis-server; .ci/run installs it)';
}

export interface TestRedis {
  url: string;
  port: number;
  /** Stops the server (SIGKILL: nothing is flushed, as in a crash). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Freezes the server for `ms` (SIGSTOP, then SIGCONT): a stall, every socket kept open. */
  stall(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'bw-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    child = await spawnRedisServer(port, dir);
  };
  const stop = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    async stall(ms: number) {
      const c = child;
      if (!c) return;
      c.kill('SIGSTOP');
      await new Promise((r) => setTimeout(r, ms));
      c.kill('SIGCONT');
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
