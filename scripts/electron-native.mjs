// A second copy of better-sqlite3's native module, built for Electron's ABI, in a folder of its
// own. The project's node_modules keep the Node build (`serve` and the tests need it); the desktop
// app loads this copy through better-sqlite3's `nativeBinding` option (`npm start`), and the
// packaging script puts it into its staging copy (`npm run package`).
//
// How the copy is made: better-sqlite3's package is copied to a staging folder (never built in
// place), then `prebuild-install` fetches the prebuilt binary for Electron; when no prebuilt one
// exists (or the network is down), `node-gyp` builds it from the bundled SQLite sources.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';

export const BINARY_NAME = 'better_sqlite3.node';
/** One fetch or one build: long enough to compile SQLite on a slow laptop. */
const STEP_TIMEOUT_MS = 10 * 60_000;

/** Versions and paths one Electron native build is for; defaults read from `root`. */
export function nativeTarget(root, overrides = {}) {
  const require = createRequire(join(root, 'package.json'));
  const sqliteDir = dirname(require.resolve('better-sqlite3/package.json'));
  const readVersion = (file) => JSON.parse(readFileSync(file, 'utf8')).version;
  return {
    root,
    sqliteDir,
    sqliteVersion: readVersion(join(sqliteDir, 'package.json')),
    electronVersion: readVersion(require.resolve('electron/package.json')),
    platform: process.platform,
    arch: process.arch,
    cacheDir: join(root, 'node_modules', '.cache', 'breakwater-electron-native'),
    prebuildInstall: () =>
      createRequire(join(sqliteDir, 'package.json')).resolve('prebuild-install/bin.js'),
    nodeGyp: () => require.resolve('node-gyp/bin/node-gyp.js'),
    ...overrides,
  };
}

/** The folder name: one per better-sqlite3 version, Electron version, OS and CPU. */
export function nativeKey(t) {
  return `better-sqlite3-${t.sqliteVersion}-electron-${t.electronVersion}-${t.platform}-${t.arch}`;
}

/** Where the Electron build of the native module lives once made. */
export function electronBindingPath(t) {
  return join(t.cacheDir, nativeKey(t), BINARY_NAME);
}

function defaultRun(command, args, cwd) {
  return spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: STEP_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Runs a node tool whose script `locate()` finds; a tool that is not installed is a failed step. */
function runTool(run, locate, args, cwd) {
  let script;
  try {
    script = locate();
  } catch (err) {
    return { status: null, error: new Error(`not installed (${err.message.split('\n')[0]})`) };
  }
  return run(process.execPath, [script, ...args], cwd);
}

function why(result) {
  if (result.error) return result.error.code === 'ETIMEDOUT' ? 'timed out' : result.error.message;
  const lines = `${result.stderr ?? ''}\n${result.stdout ?? ''}`
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  // node-gyp spreads its cause (no network, no compiler, no Python) over `ERR! stack` lines
  // before the call stack itself.
  const stack = lines
    .filter((l) => /ERR! stack /.test(l) && !/ERR! stack\s+at /.test(l))
    .map((l) => l.replace(/^.*ERR! stack\s*/, ''))
    .join(' ');
  const line = stack || lines.find((l) => /ERR!|error/i.test(l)) || lines.at(-1);
  return (line || `exit code ${result.status}`).slice(0, 240);
}

/**
 * Makes (once) the Electron build of better-sqlite3 and answers `{ ok: true, file, made }`, or
 * `{ ok: false, reason }` naming both attempts. `run(command, args, cwd)` is spawnSync-like and
 * injected by tests; it only ever runs inside the staging folder.
 */
export function ensureElectronBinding(t, run = defaultRun) {
  const file = electronBindingPath(t);
  if (existsSync(file)) return { ok: true, file, made: false };
  const staging = join(t.cacheDir, `staging-${nativeKey(t)}-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(t.cacheDir, { recursive: true });
  // Everything but the Node build: the staging copy must never hand back the wrong ABI.
  cpSync(t.sqliteDir, staging, {
    recursive: true,
    filter: (src) => {
      const rel = relative(t.sqliteDir, src);
      return rel !== 'build' && !rel.startsWith(`build${sep}`);
    },
  });
  const built = join(staging, 'build', 'Release', BINARY_NAME);
  const runtime = [`--runtime=electron`, `--target=${t.electronVersion}`, `--arch=${t.arch}`];
  const attempts = [];
  try {
    const fetched = runTool(
      run,
      t.prebuildInstall,
      [...runtime, `--platform=${t.platform}`],
      staging,
    );
    if (fetched.status !== 0 || !existsSync(built)) {
      attempts.push(`prebuilt download: ${why(fetched)}`);
      const compiled = runTool(
        run,
        t.nodeGyp,
        ['rebuild', '--release', ...runtime, '--dist-url=https://electronjs.org/headers'],
        staging,
      );
      if (compiled.status !== 0 || !existsSync(built)) {
        attempts.push(`build from source: ${why(compiled)}`);
        return {
          ok: false,
          reason: `could not get better-sqlite3 for Electron ${t.electronVersion} (${attempts.join('; ')})`,
        };
      }
    }
    // Copy then rename: a crash half-way never leaves a truncated binary at the final path.
    mkdirSync(dirname(file), { recursive: true });
    cpSync(built, `${file}.partial`);
    renameSync(`${file}.partial`, file);
    return { ok: true, file, made: true };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
