#!/usr/bin/env node
// Runs `electron-vite build` when a build output is missing or older than any file under src/.
// Shared by scripts/serve.mjs and scripts/start.mjs; `node scripts/build-if-stale.mjs` checks the
// desktop outputs (used by the e2e test).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** What `breakwater serve` needs. */
export const SERVE_OUTPUTS = ['out/main/cli.js', 'out/main/statusline.js'];
/** What the desktop app needs. */
export const DESKTOP_OUTPUTS = [
  'out/main/index.js',
  'out/main/cli.js',
  'out/main/statusline.js',
  'out/preload/index.cjs',
  'out/renderer/index.html',
];

const INPUTS = ['src', 'electron.vite.config.ts'];

/** Newest file below `path` (or `path` itself), as { file, mtimeMs }. */
function newest(path) {
  if (!existsSync(path)) return null;
  const stat = statSync(path);
  if (!stat.isDirectory()) return { file: path, mtimeMs: stat.mtimeMs };
  let best = null;
  for (const entry of readdirSync(path)) {
    const found = newest(join(path, entry));
    if (found && (!best || found.mtimeMs > best.mtimeMs)) best = found;
  }
  return best;
}

/** Why the outputs need a build, or null when they are up to date. */
export function staleReason(outputs, root = ROOT) {
  let oldest = null;
  for (const output of outputs) {
    const file = join(root, output);
    if (!existsSync(file)) return `${output} is missing`;
    const { mtimeMs } = statSync(file);
    if (!oldest || mtimeMs < oldest.mtimeMs) oldest = { output, mtimeMs };
  }
  for (const input of INPUTS) {
    const found = newest(join(root, input));
    if (found && oldest && found.mtimeMs > oldest.mtimeMs) {
      return `${relative(root, found.file)} is newer than ${oldest.output}`;
    }
  }
  return null;
}

function electronViteBin(root) {
  const require = createRequire(join(root, 'package.json'));
  const pkgFile = require.resolve('electron-vite/package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin['electron-vite'];
  return join(dirname(pkgFile), bin);
}

/**
 * Builds when stale: prints one line to stderr saying so, keeps the build's own output unless
 * it fails. Throws when the build fails.
 */
export function buildIfStale(outputs = SERVE_OUTPUTS, root = ROOT) {
  const reason = staleReason(outputs, root);
  if (!reason) return false;
  process.stderr.write(`breakwater: building first with electron-vite (${reason})\n`);
  const result = spawnSync(process.execPath, [electronViteBin(root), 'build'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    process.stderr.write(result.stdout ?? '');
    process.stderr.write(result.stderr ?? '');
    const why = result.error ? result.error.message : `exit code ${result.status ?? result.signal}`;
    throw new Error(`electron-vite build failed (${why})`);
  }
  return true;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    buildIfStale(DESKTOP_OUTPUTS);
  } catch (err) {
    process.stderr.write(`breakwater: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
