#!/usr/bin/env node
// `npm run serve -- [--config FILE] [--host H] [--port P] [--data-dir DIR]`: builds if stale,
// then runs the headless CLI (`node out/main/cli.js serve …`) as a child.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIfStale, ROOT, SERVE_OUTPUTS } from './build-if-stale.mjs';

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** A second copy of the same signal this soon is the same request (terminal + npm both send). */
const SIGNAL_DEDUPE_MS = 500;

/**
 * Runs a child with inherited stdio and resolves with the exit code to use.
 *
 * On POSIX the child gets its own process group, so a Ctrl+C in the terminal reaches it exactly
 * once, through this process, instead of once from the terminal and once more from here (which a
 * server may read as "force quit"). On Windows the console delivers Ctrl+C to the child itself.
 */
export function runChild(command, args, options = {}) {
  const posix = process.platform !== 'win32';
  const child = spawn(command, args, { stdio: 'inherit', detached: posix, ...options });
  const running = () => child.exitCode === null && child.signalCode === null;
  const lastSent = new Map();

  const onSignal = (signal) => {
    if (!posix || !running()) return;
    const now = Date.now();
    if (now - (lastSent.get(signal) ?? 0) < SIGNAL_DEDUPE_MS) return;
    lastSent.set(signal, now);
    child.kill(signal);
  };
  const onExit = () => {
    if (running()) child.kill('SIGTERM');
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, onSignal);
  process.on('exit', onExit);

  return new Promise((resolve) => {
    const done = (code) => {
      for (const signal of FORWARDED_SIGNALS) process.off(signal, onSignal);
      process.off('exit', onExit);
      resolve(code);
    };
    child.on('error', (err) => {
      process.stderr.write(`breakwater: could not start ${command}: ${err.message}\n`);
      done(1);
    });
    child.on('exit', (code, signal) => {
      done(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 1));
    });
  });
}

/** Builds if stale, then runs `node out/main/cli.js serve …args`; resolves with its exit code. */
export async function serve(args) {
  try {
    buildIfStale(SERVE_OUTPUTS);
  } catch (err) {
    process.stderr.write(`breakwater: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  return runChild(process.execPath, [join(ROOT, 'out', 'main', 'cli.js'), 'serve', ...args]);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exit(await serve(process.argv.slice(2)));
}
