// A real redis-server for team-mode tests: on a free loopback port, in a temporary directory,
// without persistence. It can be stopped and started again on the same port (a Redis outage).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Why team-mode tests cannot run here (no redis-server binary), or null when they can. */
export function redisMissing(): string | null {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (found.error || found.status !== 0)
    return 'redis-server is not installed (Debian: apt-get install redis-server; .ci/run installs it)';
  return null;
}

export interface TestRedis {
  url: string;
  port: number;
  /** Stops the server (SIGKILL: nothing is flushed, as in a crash). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'bw-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    const c = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--logfile',
        '',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = c;
    let out = '';
    c.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
    });
    const end = Date.now() + 10_000;
    while (!out.includes('Ready to accept connections')) {
      if (c.exitCode !== null || Date.now() > end)
        throw new Error(`redis-server did not start: ${out.slice(-500)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
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
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
