// Starts the built desktop app with Playwright's Electron driver and checks the window and the
// preload bridge. Skips (with the reason in the test name) where Electron cannot run: no Electron
// binary installed, or no display on Linux.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { _electron, type ElectronApplication } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION_METHODS } from '../../src/shared/ipc';
import { buildIfStale, ROOT } from '../support/browser';

/** The Electron executable as the electron package resolves it, or null when not installed. */
function electronBinary(): string | null {
  let dir: string;
  try {
    dir = dirname(createRequire(join(ROOT, 'package.json')).resolve('electron/package.json'));
  } catch {
    return null;
  }
  const pathFile = join(dir, 'path.txt');
  const relativePath = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const binary = override
    ? join(override, relativePath || 'electron')
    : relativePath
      ? join(dir, 'dist', relativePath)
      : null;
  return binary && existsSync(binary) ? binary : null;
}

const executablePath = electronBinary();
const needsDisplay = process.platform !== 'darwin' && process.platform !== 'win32';
const skipReason = !executablePath
  ? 'no Electron binary on this machine'
  : needsDisplay && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY
    ? 'no display (DISPLAY and WAYLAND_DISPLAY unset)'
    : null;

describe('desktop app (Electron)', () => {
  let app: ElectronApplication | undefined;
  let dataDir: string | undefined;

  beforeAll(async () => {
    if (skipReason || !executablePath) return;
    buildIfStale();

    // As `npm start` does: better-sqlite3 built for Electron, in a folder of its own.
    const native = await import(pathToFileURL(join(ROOT, 'scripts', 'electron-native.mjs')).href);
    const binding = native.ensureElectronBinding(native.nativeTarget(ROOT));
    if (!binding.ok) throw new Error(binding.reason);

    dataDir = mkdtempSync(join(tmpdir(), 'breakwater-e2e-'));
    const env: Record<string, string> = { BREAKWATER_SQLITE_BINDING: binding.file };
    for (const [key, value] of Object.entries(process.env)) {
      if (
        value !== undefined &&
        key !== 'ELECTRON_RUN_AS_NODE' &&
        key !== 'ELECTRON_RENDERER_URL'
      ) {
        env[key] = value;
      }
    }
    // Chromium refuses to run as root (CI containers) unless its own sandbox is off.
    const chromiumFlags = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
    app = await _electron.launch({
      executablePath,
      // Own data dir (own single-instance lock) and a free port: never clashes with a running app.
      args: [...chromiumFlags, ROOT, '--data-dir', dataDir, '--port', '0'],
      cwd: ROOT,
      env,
      timeout: 60_000,
    });
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it.skipIf(skipReason !== null)(
    skipReason
      ? `skipped: ${skipReason}`
      : 'opens the Breakwater window with the preload bridge and a listening gateway',
    async () => {
      if (!app) throw new Error('the app did not launch');
      const page = await app.firstWindow();
      await page.waitForLoadState('domcontentloaded');

      expect(await page.title()).toBe('Breakwater');
      const windowTitle = await app.evaluate(({ BrowserWindow }) =>
        BrowserWindow.getAllWindows()[0]?.getTitle(),
      );
      expect(windowTitle).toBe('Breakwater');

      // The bridge is exactly what the preload exposes; Node stays out of the page.
      const exposed = await page.evaluate(() => ({
        keys: window.breakwater ? Object.keys(window.breakwater).sort() : null,
        hasRequire: 'require' in window,
        hasProcess: 'process' in window,
      }));
      expect(exposed).toEqual({
        keys: [
          ...ACTION_METHODS,
          'getSnapshot',
          'getStartupError',
          'desktopAction',
          'onEvents',
          'onNavigate',
        ].sort(),
        hasRequire: false,
        hasProcess: false,
      });

      const startup = await page.evaluate(() => window.breakwater?.getStartupError());
      expect(startup).toEqual({ ok: true, data: null });
      const snapshot = await page.evaluate(() => window.breakwater?.getSnapshot());
      expect(snapshot?.ok).toBe(true);
      if (snapshot?.ok) expect(snapshot.data.gateway.port).toBeGreaterThan(0);

      await page.getByText('Running', { exact: true }).waitFor({ timeout: 15_000 });
      // The engine answers on its port, and the window's bridge reaches the admin API.
      const health = await fetch(`${snapshot?.ok ? snapshot.data.gateway.baseUrl : ''}/api/health`);
      expect(health.status).toBe(200);
      const settings = await page.evaluate(() => window.breakwater?.getSettings());
      expect(settings?.ok).toBe(true);
    },
    60_000,
  );
});
