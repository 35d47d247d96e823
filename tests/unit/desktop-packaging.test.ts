// The packaging steps without the Electron binary or the network: the second native build is
// made in a staging copy and placed in a folder of its own, the app is packaged from a staging
// copy, and the project's own node_modules (the Node build `serve` and the tests need) are never
// touched. The electron-builder config validates against electron-builder's own schema.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const NODE_BUILD = 'node-abi-115-build';
const require = createRequire(import.meta.url);

// The scripts are plain .mjs run by node; imported by URL so the typecheck does not need them typed.
type Run = (command: string, args: string[], cwd: string) => { status: number | null };
// biome-ignore lint/suspicious/noExplicitAny: untyped .mjs modules
const native: any = await import(pathToFileURL(join(ROOT, 'scripts', 'electron-native.mjs')).href);
// biome-ignore lint/suspicious/noExplicitAny: untyped .mjs modules
const pack: any = await import(pathToFileURL(join(ROOT, 'scripts', 'package.mjs')).href);

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** A project folder with the shape npm leaves: better-sqlite3 built for Node, its deps, out/. */
function fixtureProject(root: string): void {
  write(
    join(root, 'package.json'),
    JSON.stringify({
      name: 'breakwater',
      version: '0.1.0',
      type: 'module',
      main: 'out/main/index.js',
      homepage: 'https://example.org',
      author: { name: 'A', email: 'a@example.org' },
      scripts: { test: 'vitest' },
      dependencies: { 'better-sqlite3': '^12', undici: '^7' },
      devDependencies: { electron: '45.5.0' },
    }),
  );
  const mod = (name: string, meta: object, at = join(root, 'node_modules', name)) =>
    write(join(at, 'package.json'), JSON.stringify({ name, version: '1.0.0', ...meta }));
  mod('better-sqlite3', {
    version: '12.4.1',
    dependencies: { bindings: '1', 'prebuild-install': '7' },
  });
  write(join(root, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'), NODE_BUILD);
  write(join(root, 'node_modules/better-sqlite3/lib/index.js'), 'module.exports = {};');
  mod('bindings', { dependencies: { 'file-uri-to-path': '1' } });
  mod('file-uri-to-path', {});
  mod('prebuild-install', { dependencies: { semver: '^7' } });
  // A nested copy: prebuild-install needs another semver than the top-level one.
  mod(
    'semver',
    { version: '7.0.0' },
    join(root, 'node_modules/prebuild-install/node_modules/semver'),
  );
  mod('semver', { version: '6.0.0' });
  mod('undici', {});
  mod('vitest', {});
  mod('electron', { version: '45.5.0' });
  mod('electron-vite', { bin: { 'electron-vite': 'bin/electron-vite.js' } });
  mod('electron-builder', { bin: { 'electron-builder': 'cli.js' } });
  write(join(root, 'out/main/index.js'), 'export {};');
  write(join(root, 'build/icon.png'), 'png');
  write(join(root, 'resources/tray-ok.png'), 'png');
}

function target(root: string) {
  return native.nativeTarget(root, {
    sqliteDir: join(root, 'node_modules', 'better-sqlite3'),
    sqliteVersion: '12.4.1',
    electronVersion: '45.5.0',
    platform: 'linux',
    arch: 'x64',
    prebuildInstall: () => '/fake/prebuild-install/bin.js',
    nodeGyp: () => '/fake/node-gyp/bin/node-gyp.js',
  });
}

const nodeBuild = (root: string) =>
  readFileSync(join(root, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'), 'utf8');

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bw-package-'));
  fixtureProject(root);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the Electron build of better-sqlite3 (npm start and npm run package)', () => {
  it('fetches it in a staging copy and places it in a folder of its own', () => {
    const calls: { args: string[]; cwd: string; sawNodeBuild: boolean }[] = [];
    const run: Run = (_command, args, cwd) => {
      const built = join(cwd, 'build', 'Release', 'better_sqlite3.node');
      calls.push({ args, cwd, sawNodeBuild: existsSync(built) });
      write(built, 'electron-abi-140-build');
      return { status: 0 };
    };
    const t = target(root);
    const result = native.ensureElectronBinding(t, run);
    expect(result.ok).toBe(true);
    expect(result.file).toBe(
      join(
        root,
        'node_modules/.cache/breakwater-electron-native',
        'better-sqlite3-12.4.1-electron-45.5.0-linux-x64',
        'better_sqlite3.node',
      ),
    );
    expect(readFileSync(result.file, 'utf8')).toBe('electron-abi-140-build');
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call?.args).toEqual([
      '/fake/prebuild-install/bin.js',
      '--runtime=electron',
      '--target=45.5.0',
      '--arch=x64',
      '--platform=linux',
    ]);
    // Never in place, and the Node build is not copied along (it could be mistaken for the result).
    expect(call?.cwd).not.toBe(t.sqliteDir);
    expect(call?.sawNodeBuild).toBe(false);
    expect(nodeBuild(root)).toBe(NODE_BUILD);
    // Made once: the next start finds it without running anything.
    expect(native.ensureElectronBinding(t, () => ({ status: 1 })).made).toBe(false);
  });

  it('builds from source when no prebuilt binary can be fetched', () => {
    const seen: string[] = [];
    const run: Run = (_command, args, cwd) => {
      seen.push(args[0] ?? '');
      if (args[0]?.includes('prebuild')) return { status: 1 };
      write(join(cwd, 'build', 'Release', 'better_sqlite3.node'), 'compiled');
      return { status: 0 };
    };
    const result = native.ensureElectronBinding(target(root), run);
    expect(seen).toEqual(['/fake/prebuild-install/bin.js', '/fake/node-gyp/bin/node-gyp.js']);
    expect(readFileSync(result.file, 'utf8')).toBe('compiled');
  });

  it('counts a tool that is not installed as a failed step, not a crash', () => {
    const t = { ...target(root), nodeGyp: () => require('node-gyp-is-not-here') };
    const result = native.ensureElectronBinding(t, () => ({ status: 1 }));
    expect(result.ok).toBe(false);
    expect(result.reason).toMatch(/build from source: not installed/);
  });

  it('says why both ways failed and leaves nothing half-made', () => {
    const run = () => ({ status: 1, stderr: 'gyp ERR! find Python' });
    const t = target(root);
    const result = native.ensureElectronBinding(t, run);
    expect(result.ok).toBe(false);
    expect(result.reason).toMatch(
      /Electron 45\.5\.0.*prebuilt download.*build from source.*Python/,
    );
    expect(existsSync(native.electronBindingPath(t))).toBe(false);
    expect(nodeBuild(root)).toBe(NODE_BUILD);
  });
});

describe('npm run package', () => {
  it('packages a staging copy: runtime deps only, the Electron build placed, the project untouched', () => {
    const stageDir = join(root, 'dist', '.stage');
    const commands: { args: string[]; cwd: string }[] = [];
    const run: Run = (_command, args, cwd) => {
      commands.push({ args, cwd });
      return { status: 0 };
    };
    const nativeRun: Run = (_c, _a, cwd) => {
      write(join(cwd, 'build', 'Release', 'better_sqlite3.node'), 'electron-build');
      return { status: 0 };
    };
    const code = pack.packageApp({
      root,
      run,
      nativeRun,
      stageDir,
      env: {},
      target: target(root),
      say: () => {},
    });
    expect(code).toBe(0);

    const staged = JSON.parse(readFileSync(join(stageDir, 'package.json'), 'utf8'));
    expect(staged.devDependencies).toBeUndefined();
    expect(staged.scripts).toBeUndefined();
    expect(staged.author.email).toBe('a@example.org');
    const stagedModule = (rel: string) =>
      existsSync(join(stageDir, 'node_modules', rel, 'package.json'));
    for (const rel of ['better-sqlite3', 'bindings', 'file-uri-to-path', 'undici']) {
      expect(stagedModule(rel), rel).toBe(true);
    }
    expect(
      JSON.parse(
        readFileSync(
          join(stageDir, 'node_modules/prebuild-install/node_modules/semver/package.json'),
          'utf8',
        ),
      ).version,
    ).toBe('7.0.0');
    expect(stagedModule('vitest')).toBe(false);
    expect(stagedModule('semver')).toBe(false);
    expect(existsSync(join(stageDir, 'out/main/index.js'))).toBe(true);
    expect(existsSync(join(stageDir, 'resources/tray-ok.png'))).toBe(true);
    expect(
      readFileSync(
        join(stageDir, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
        'utf8',
      ),
    ).toBe('electron-build');

    // electron-builder ran on the staging folder; the project's Node build is still there.
    const builder = commands.find((c) => c.args[0]?.includes('electron-builder'));
    expect(builder?.args).toEqual(
      expect.arrayContaining(['--projectDir', stageDir, '-c.electronVersion=45.5.0']),
    );
    expect(nodeBuild(root)).toBe(NODE_BUILD);
  });

  it('stops before electron-builder when the Electron build cannot be had', () => {
    const commands: string[][] = [];
    const code = pack.packageApp({
      root,
      run: (_c: string, args: string[]) => {
        commands.push(args);
        return { status: 0 };
      },
      nativeRun: () => ({ status: 1 }),
      stageDir: join(root, 'dist', '.stage'),
      env: {},
      target: target(root),
      say: () => {},
    });
    expect(code).toBe(1);
    expect(commands.some((a) => a[0]?.includes('electron-builder'))).toBe(false);
  });

  it('signs ad hoc on macOS without a certificate and publishes only with a feed', () => {
    const base = { root, stageDir: '/s', platform: 'darwin', electronVersion: '45.5.0' };
    expect(pack.builderOverrides({ ...base, env: {} })).toContain('-c.mac.identity=-');
    expect(pack.builderOverrides({ ...base, env: { CSC_LINK: 'cert.p12' } })).not.toContain(
      '-c.mac.identity=-',
    );
    expect(pack.builderOverrides({ ...base, env: {} }).join(' ')).not.toMatch(/publish/);
    expect(
      pack.builderOverrides({ ...base, env: { BREAKWATER_UPDATE_URL: 'https://u.example/' } }),
    ).toEqual(
      expect.arrayContaining(['-c.publish.provider=generic', '-c.publish.url=https://u.example/']),
    );
  });
});

describe('electron-builder config', () => {
  const require = createRequire(join(ROOT, 'package.json'));
  const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js');
  const yaml = require('js-yaml');
  const config = yaml.load(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8')) as Record<
    string,
    unknown
  >;
  const quiet = { isEnabled: false, add() {} };

  it("validates against electron-builder's own JSON schema", async () => {
    await expect(validateConfiguration(config, quiet)).resolves.toBeUndefined();
  });
  it('still validates with the publish feed `npm run package` adds from BREAKWATER_UPDATE_URL', async () => {
    const args: string[] = pack.builderOverrides({
      root: ROOT,
      stageDir: '/s',
      env: { BREAKWATER_UPDATE_URL: 'https://updates.example/breakwater/' },
      platform: 'linux',
      electronVersion: '45.5.0',
    });
    const publish: Record<string, string> = {};
    for (const a of args) {
      const m = /^-c\.publish\.(\w+)=(.*)$/.exec(a);
      if (m?.[1] && m[2] !== undefined) publish[m[1]] = m[2];
    }
    expect(publish).toEqual({ provider: 'generic', url: 'https://updates.example/breakwater/' });
    await expect(validateConfiguration({ ...config, publish }, quiet)).resolves.toBeUndefined();
    await expect(
      validateConfiguration({ ...config, publish: { provider: 'nowhere' } }, quiet),
    ).rejects.toThrow(/publish/);
  });
  it('is really checked: an unknown option is refused', async () => {
    await expect(validateConfiguration({ ...config, notAnOption: 1 }, quiet)).rejects.toThrow(
      /notAnOption/,
    );
  });
  it('does not rebuild native modules itself (the staging copy holds the Electron build)', () => {
    expect(config.npmRebuild).toBe(false);
    expect(config.publish).toBeNull();
  });
  it('the deb target has what it needs from package.json: homepage and an author email', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.author.email).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]+$/);
    expect(pkg.scripts.package).toBe('node scripts/package.mjs');
  });
});
