#!/usr/bin/env node
// `npm run package`: desktop installers into dist/, built from a staging copy of the app so the
// project's own node_modules keep their Node build of better-sqlite3 (`serve` and the tests need
// it). Steps: build with electron-vite; stage out/, build/, resources/, a production package.json
// and the runtime dependencies; put the Electron build of better-sqlite3 into the staging copy;
// run electron-builder on the staging folder.
//
// Environment: CSC_LINK / CSC_NAME sign on macOS (without them the app is signed ad hoc, enough to
// run on the machine that built it); APPLE_ID + APPLE_APP_SPECIFIC_PASSWORD + APPLE_TEAM_ID (or
// APPLE_API_KEY + APPLE_API_KEY_ID + APPLE_API_ISSUER) notarize, read by electron-builder itself;
// BREAKWATER_UPDATE_URL turns on the `generic` publish feed (off otherwise).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BINARY_NAME, ensureElectronBinding, nativeTarget } from './electron-native.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Fields of package.json the packaged app and electron-builder read. */
const PACKAGE_FIELDS = [
  'name',
  'version',
  'description',
  'license',
  'homepage',
  'author',
  'type',
  'main',
  'dependencies',
];
/** Copied beside the staged package.json (buildResources and extraResources are read there). */
const STAGED_DIRS = ['out', 'build', 'resources'];

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/**
 * The runtime dependency closure of `pkg`, as package folders relative to `root` (nested ones
 * included), found the way Node resolves them: the nearest node_modules upwards.
 */
export function runtimeClosure(root, pkg) {
  const found = new Set();
  const visit = (fromDir, deps) => {
    for (const name of Object.keys(deps ?? {})) {
      let at = null;
      for (let dir = fromDir; !at; dir = dirname(dir)) {
        const candidate = join(dir, 'node_modules', name);
        if (existsSync(join(candidate, 'package.json'))) at = candidate;
        if (dir === root || dirname(dir) === dir) break;
      }
      if (!at) throw new Error(`runtime dependency ${name} is not installed (npm install)`);
      const rel = relative(root, at);
      if (found.has(rel)) continue;
      found.add(rel);
      const meta = readJson(join(at, 'package.json'));
      visit(at, { ...meta.dependencies, ...meta.optionalDependencies });
    }
  };
  visit(root, pkg.dependencies);
  return [...found].sort();
}

/** electron-builder `-c.` overrides from the environment (signing identity, publish feed). */
export function builderOverrides({ root, stageDir, env, platform, electronVersion }) {
  const args = [
    `-c.directories.output=${join(root, 'dist')}`,
    // The staging folder has no node_modules/electron to read the version from.
    `-c.electronVersion=${electronVersion}`,
  ];
  if (platform === 'darwin' && !env.CSC_LINK && !env.CSC_NAME) args.push('-c.mac.identity=-');
  if (env.BREAKWATER_UPDATE_URL) {
    args.push('-c.publish.provider=generic', `-c.publish.url=${env.BREAKWATER_UPDATE_URL}`);
  }
  return ['--projectDir', stageDir, '--config', join(root, 'electron-builder.yml'), ...args];
}

/** Copies the app into `stageDir` (never touching `root`), returns the staged dependency list. */
export function stageApp(root, stageDir) {
  const pkg = readJson(join(root, 'package.json'));
  rmSync(stageDir, { recursive: true, force: true });
  mkdirSync(stageDir, { recursive: true });
  const staged = Object.fromEntries(PACKAGE_FIELDS.filter((f) => f in pkg).map((f) => [f, pkg[f]]));
  writeFileSync(join(stageDir, 'package.json'), `${JSON.stringify(staged, null, 2)}\n`);
  for (const dir of STAGED_DIRS) {
    if (existsSync(join(root, dir)))
      cpSync(join(root, dir), join(stageDir, dir), { recursive: true });
  }
  const closure = runtimeClosure(root, pkg);
  for (const rel of closure) {
    const from = join(root, rel);
    cpSync(from, join(stageDir, rel), {
      recursive: true,
      // Nested packages are copied on their own; a native module's build is replaced below.
      filter: (src) => {
        const inner = relative(from, src).split(/[\\/]/);
        return (
          inner[0] !== 'node_modules' && !(rel.endsWith('better-sqlite3') && inner[0] === 'build')
        );
      },
    });
  }
  return closure;
}

/** Puts the Electron build of better-sqlite3 where `bindings` finds it in the staging copy. */
export function placeElectronBinding(stageDir, file) {
  const dest = join(stageDir, 'node_modules', 'better-sqlite3', 'build', 'Release', BINARY_NAME);
  mkdirSync(dirname(dest), { recursive: true });
  cpSync(file, dest);
  return dest;
}

function defaultRun(command, args, cwd) {
  return spawnSync(command, args, { cwd, stdio: 'inherit' });
}

function binOf(root, pkgName, bin) {
  const require = createRequire(join(root, 'package.json'));
  const pkgFile = require.resolve(`${pkgName}/package.json`);
  const meta = readJson(pkgFile);
  return join(dirname(pkgFile), typeof meta.bin === 'string' ? meta.bin : meta.bin[bin]);
}

/**
 * Runs every step; answers the exit code. `opts.run(command, args, cwd)` and `opts.target`
 * (see nativeTarget) are injected by tests.
 */
export function packageApp(opts = {}) {
  const root = opts.root ?? ROOT;
  const run = opts.run ?? defaultRun;
  const env = opts.env ?? process.env;
  const stageDir = opts.stageDir ?? join(root, 'dist', '.stage');
  const say = opts.say ?? ((line) => process.stderr.write(`breakwater: ${line}\n`));
  const target = opts.target ?? nativeTarget(root);

  const build = run(
    process.execPath,
    [binOf(root, 'electron-vite', 'electron-vite'), 'build'],
    root,
  );
  if (build.status !== 0) {
    say('electron-vite build failed');
    return 1;
  }
  stageApp(root, stageDir);
  const binding = ensureElectronBinding(target, opts.nativeRun);
  if (!binding.ok) {
    say(binding.reason);
    return 1;
  }
  placeElectronBinding(stageDir, binding.file);
  const builder = run(
    process.execPath,
    [
      binOf(root, 'electron-builder', 'electron-builder'),
      ...builderOverrides({
        root,
        stageDir,
        env,
        platform: target.platform,
        electronVersion: target.electronVersion,
      }),
    ],
    root,
  );
  if (builder.status !== 0) {
    say('electron-builder failed; the project node_modules are unchanged');
    return builder.status ?? 1;
  }
  say(`installers are in ${join(root, 'dist')}`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exit(packageApp());
}
