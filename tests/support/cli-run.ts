// The headless CLI (src/main/cli.ts through tsx) as a child process, for integration tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const CLI = join(ROOT, 'src/main/cli.ts');
const BUILT_CLI = join(ROOT, 'out/main/cli.js');

export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const running: ChildProcess[] = [];

/**
 * Starts `breakwater <args>` with exactly `env`, from the built CLI when `built` (as users run it,
 * once built); `killCliRuns` ends what is still running.
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv, built = false): CliRun {
  const [command, entry] = built ? [process.execPath, BUILT_CLI] : [TSX, CLI];
  const child = spawn(command, [entry, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

export function killCliRuns(): void {
  for (const c of running.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
}

/** The address a `serve` run prints once it listens. */
export async function listening(r: CliRun, timeoutMs = 15_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const m = /Breakwater listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(r.stdout());
    if (m) return m[1]!;
    if (r.child.exitCode !== null) throw new Error(`exited early: ${r.stderr()}`);
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`never listened: ${r.stderr()}`);
}
