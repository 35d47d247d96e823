#!/usr/bin/env node
// `npm start -- [args]`: the desktop app when Electron can run here, else the headless server.
//
// Electron can run when (1) on Linux and other X11/Wayland systems, a display is set, and
// (2) the Electron binary is installed (node_modules/electron/path.txt + dist/), or one attempt
// to fetch it (node_modules/electron/install.js, 60 s at most) succeeds, and (3) better-sqlite3
// exists built for Electron's ABI in a folder of its own (scripts/electron-native.mjs; fetched or
// built once, the Node build in node_modules stays as it is for `serve` and the tests).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildIfStale, DESKTOP_OUTPUTS, ROOT } from './build-if-stale.mjs';
import { electronBindingPath, ensureElectronBinding, nativeTarget } from './electron-native.mjs';
import { runChild, serve } from './serve.mjs';

const INSTALL_TIMEOUT_MS = 60_000;

function say(line) {
  process.stderr.write(`breakwater: ${line}\n`);
}

function needsDisplay() {
  return process.platform !== 'darwin' && process.platform !== 'win32';
}

function electronPackageDir() {
  try {
    const require = createRequire(join(ROOT, 'package.json'));
    return dirname(require.resolve('electron/package.json'));
  } catch {
    return null;
  }
}

/** The Electron executable, resolved the way the electron package does, when it exists. */
function installedBinary(dir) {
  const pathFile = join(dir, 'path.txt');
  const relativePath = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  let binary = null;
  if (override) binary = join(override, relativePath || 'electron');
  else if (relativePath) binary = join(dir, 'dist', relativePath);
  return binary && existsSync(binary) ? binary : null;
}

function lastLine(text) {
  const lines = (text ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const errorLine = lines.find((line) => /error/i.test(line));
  return (errorLine ?? lines.at(-1) ?? '').slice(0, 200);
}

/** { binary } when Electron can start here, else { reason }. */
function findElectron() {
  const dir = electronPackageDir();
  const installed = dir ? installedBinary(dir) : null;
  if (needsDisplay() && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    // No point downloading a binary that could not open a window anyway.
    const also = installed ? '' : '; the Electron binary is not installed either';
    return { reason: `no display: neither DISPLAY nor WAYLAND_DISPLAY is set${also}` };
  }
  if (!dir) return { reason: 'the electron package is not installed' };
  if (installed) return { binary: installed };

  say(
    `the Electron binary is missing; trying once to download it (${INSTALL_TIMEOUT_MS / 1000} s at most)`,
  );
  const result = spawnSync(process.execPath, [join(dir, 'install.js')], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    timeout: INSTALL_TIMEOUT_MS,
  });
  const fetched = installedBinary(dir);
  if (fetched) return { binary: fetched };
  const why =
    result.error?.code === 'ETIMEDOUT'
      ? `timed out after ${INSTALL_TIMEOUT_MS / 1000} s`
      : lastLine(result.stderr) || lastLine(result.stdout) || `exit code ${result.status}`;
  return { reason: `the Electron binary is missing and downloading it failed: ${why}` };
}

function headless(reason, args) {
  say(`Electron cannot start here (${reason}); running the headless server instead.`);
  say(
    'The dashboard opens in a browser instead of a window: see the "Dashboard:" line below once it listens.',
  );
  return serve(args);
}

/** The Electron build of better-sqlite3: { file } or { reason }. */
function electronBinding() {
  let target;
  try {
    target = nativeTarget(ROOT);
  } catch (err) {
    return { reason: `better-sqlite3 or electron is not installed (${String(err)})` };
  }
  const cached = electronBindingPath(target);
  if (existsSync(cached)) return { file: cached };
  say(
    `first desktop start: getting better-sqlite3 for Electron ${target.electronVersion} (a prebuilt download, else a build from source; once)`,
  );
  try {
    const made = ensureElectronBinding(target);
    return made.ok ? { file: made.file } : { reason: made.reason };
  } catch (err) {
    return { reason: `could not prepare better-sqlite3 for Electron (${String(err)})` };
  }
}

async function main(args) {
  const found = findElectron();
  if (!found.binary) return headless(found.reason, args);
  const binding = electronBinding();
  if (!binding.file) return headless(binding.reason, args);
  try {
    buildIfStale(DESKTOP_OUTPUTS);
  } catch (err) {
    say(err instanceof Error ? err.message : String(err));
    return 1;
  }
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  env.BREAKWATER_SQLITE_BINDING = binding.file;
  return runChild(found.binary, [ROOT, ...args], { env });
}

process.exit(await main(process.argv.slice(2)));
