// A throwaway redis-server on a free loopback port, without persistence, for the team-mode tests
// (tests/support/redis.ts) and benchmark (bench/team.mjs). Debian's `redis-server` package.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';

/** True when a `redis-server` binary is on the PATH. */
export function haveRedisServer() {
  const r = spawnSync('redis-server', ['--version']);
  return !r.error && r.status === 0;
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
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

/** Starts redis-server on `port` with `dir` as its folder; resolves with the child once ready. */
export async function spawnRedisServer(port, dir) {
  const child = spawn(
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
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let out = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis-server did not start in 10 s')), 10_000);
    child.stdout.on('data', (d) => {
      out += d;
      if (!out.includes('Ready to accept connections')) return;
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}): ${out.slice(-500)}`));
    });
  });
  child.stdout.resume();
  return child;
}
