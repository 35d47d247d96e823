// Process plumbing shared by the benchmark scripts: child processes that die with the parent,
// servers started until they print their port, the fake upstream's step switch and the load
// generator's request/answer protocol over IPC (bench/load.mjs).
import { fork, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../scripts/build-if-stale.mjs';

const children = new Set();

function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export function killAll() {
  for (const c of children) c.kill('SIGKILL');
}
process.on('exit', killAll);
for (const s of ['SIGINT', 'SIGTERM']) {
  process.on(s, () => {
    killAll();
    process.exit(130);
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * CPU time of a process so far, in µs: user + system, and user alone. The total is the sum of
 * its threads' scheduler run time (`/proc/PID/task/TID/schedstat`, in ns), since stat(5)'s
 * utime and stime count 10 ms clock ticks: over a 1 500-request round of a 170 µs request that
 * is a 4 % step, larger than the differences measured. Threads that ended are not in it; V8's
 * and libuv's live as long as the process. Falls back to the ticks where schedstat is missing.
 * The user share is from the ticks (schedstat does not split it). NaN once the process is gone.
 */
export function processCpuUs(pid) {
  let stat;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return { all: Number.NaN, user: Number.NaN };
  }
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const user = (Number(f[11]) * 1e6) / 100;
  const ticks = user + (Number(f[12]) * 1e6) / 100;
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    }
    return { all: Number.isFinite(ns) && ns > 0 ? ns / 1000 : ticks, user };
  } catch {
    return { all: ticks, user };
  }
}

/**
 * Spawns a server and resolves once it prints its port; `startMs` is spawn → that line.
 * `opts.ipc` opens an IPC channel, `opts.cwd` sets the working directory.
 */
export function startServer(label, command, argv, pattern, opts = {}) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = track(
      spawn(command, argv, {
        stdio: ['ignore', 'pipe', 'pipe', ...(opts.ipc ? ['ipc'] : [])],
        ...(opts.cwd ? { cwd: opts.cwd } : {}),
      }),
    );
    let out = '';
    let err = '';
    const onData = (d) => {
      out += d;
      const m = pattern.exec(out);
      if (m) {
        const startMs = Number(process.hrtime.bigint() - t0) / 1e6;
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve({ label, child, port: Number(m[1]), startMs, origin: `http://127.0.0.1:${m[1]}` });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => {
      err += d;
      if (err.length > 64 * 1024) err = err.slice(-32 * 1024);
    });
    child.once('exit', (code) =>
      reject(new Error(`${label} exited (${code}) before listening:\n${err}`)),
    );
  });
}

/** The fake upstream (bench/upstream.ts) in its own process; `setStep` changes its default step. */
export async function startUpstream() {
  const server = await startServer(
    'upstream',
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'bench', 'upstream.ts')],
    /upstream listening on (\d+)/,
    { ipc: true },
  );
  const setStep = (step) =>
    new Promise((resolve) => {
      server.child.once('message', resolve);
      server.child.send({ step });
    });
  return { ...server, setStep };
}

/**
 * The load generator (bench/load.mjs) in its own process. `ask` runs one of its jobs;
 * `holdOpenStreams` opens streams and keeps them open until `release()` is called.
 */
export function startGenerator() {
  const child = track(
    fork(join(ROOT, 'bench', 'load.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  let seq = 0;
  const waiting = new Map();
  child.on('message', (msg) => {
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.error) w.reject(new Error(msg.error));
    else w.resolve(msg.result);
  });
  const answer = (id) => new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
  const ask = (cmd, job, id = `${++seq}`) => {
    const answered = answer(id);
    child.send({ id, cmd, job });
    return answered;
  };
  return {
    child,
    ask,
    async holdOpenStreams(job) {
      const id = `${++seq}`;
      const released = answer(`${id}:released`);
      const result = await ask('openStreams', job, id);
      return {
        result,
        release() {
          child.send({ cmd: 'release' });
          return released;
        },
      };
    },
  };
}
