// The real main process (src/main/index.ts and the shell under it) under plain Node, against a
// fake `electron` that records calls: the real engine serves on a real loopback port and a real
// SQLite file. Each test below names the desktop defect it guards against.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Snapshot } from '../../src/shared/contract';
import { actionChannel, IpcChannel, type StartupError } from '../../src/shared/ipc';
import { startFakeUpstream } from '../support/fake-upstream';
import { standardConfig } from '../support/gateway';
import { learnFixes } from '../support/learn-fixes';
import { type Fake, fakeEvent, resetFakeElectron } from './desktop-fake-electron';

vi.mock('electron', async () => (await import('./desktop-fake-electron')).electronModule);
vi.mock('electron-updater', async () => (await import('./desktop-fake-electron')).updaterModule);
// Every launch adds the main process's own process listeners (signals, uncaught errors).
process.setMaxListeners(100);

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN_DIR = join(ROOT, 'out', 'main');

let dir: string;
let fake: Fake | null = null;
const servers: Server[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bw-desktop-'));
});
afterEach(async () => {
  if (fake) {
    const app = fake.electron.app;
    app.quit();
    await fake.exit;
    fake = null;
  }
  for (const s of servers.splice(0)) await new Promise((done) => s.close(done));
  delete (process as { resourcesPath?: string }).resourcesPath;
  rmSync(dir, { recursive: true, force: true });
});

interface Launch {
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  packaged?: boolean;
  backend?: string;
  args?: string[];
  /** Run src/main/index.ts itself (the process's own platform and argv). */
  entry?: boolean;
}

async function launch(o: Launch = {}): Promise<Fake> {
  fake = resetFakeElectron({
    baseDir: dir,
    ...(o.packaged !== undefined ? { packaged: o.packaged } : {}),
    ...(o.backend ? { backend: o.backend } : {}),
  });
  vi.resetModules();
  const argv = ['electron', '.', '--data-dir', join(dir, 'data'), '--port', '0', ...(o.args ?? [])];
  if (o.entry) {
    const saved = process.argv;
    process.argv = argv;
    try {
      await import('../../src/main/index');
    } finally {
      process.argv = saved;
    }
  } else {
    const { runDesktopApp } = await import('../../src/main/shell/app');
    runDesktopApp({
      mainDir: MAIN_DIR,
      argv,
      platform: o.platform ?? 'darwin',
      env: o.env ?? {},
    });
  }
  await vi.waitFor(() => expect(fake?.handlers.has(IpcChannel.getStartupError)).toBe(true));
  await invoke(fake, IpcChannel.getStartupError);
  return fake;
}

/** Calls an IPC handler as the app's own window does. */
// biome-ignore lint/suspicious/noExplicitAny: each channel answers its own shape; tests read fields
async function invoke(f: Fake | null, channel: string, ...args: unknown[]): Promise<any> {
  const win = f?.windows[0];
  const handler = f?.handlers.get(channel);
  if (!win || !handler) throw new Error(`no window or no handler for ${channel}`);
  const event = {
    sender: { id: win.webContents.id },
    senderFrame: { url: win.webContents.url, parent: null },
  };
  return handler(event, ...args);
}

async function snapshot(f: Fake): Promise<Snapshot> {
  const r = await invoke(f, IpcChannel.getSnapshot);
  if (!r.ok) throw new Error(r.error);
  return r.data;
}

function logText(): string {
  return readFileSync(join(dir, 'data', 'logs', 'breakwater.log'), 'utf8');
}

async function takenPort(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as { port: number }).port;
}

interface MenuItem {
  label?: string;
  type?: string;
  checked?: boolean;
  enabled?: boolean;
  click?: () => void;
  submenu?: MenuItem[];
}

/** The tray's context menu as last built. */
function trayMenu(f: Fake): MenuItem[] {
  return (f.trays[0]?.menu?.template ?? []) as MenuItem[];
}

function trayItem(f: Fake, label: string | RegExp): MenuItem | undefined {
  return trayMenu(f).find((i) =>
    typeof label === 'string' ? i.label === label : label.test(i.label ?? ''),
  );
}

/** The packaged app reads its resources (tray icons, app-update.yml) from here. */
function packagedResources(): string {
  const resources = join(dir, 'resources');
  mkdirSync(resources, { recursive: true });
  (process as { resourcesPath?: string }).resourcesPath = resources;
  return resources;
}

describe('the desktop main process, run for real against a fake electron', () => {
  it('serves, with a hardened window, a tray, close-to-tray, one instance and a drained quit', async () => {
    const f = await launch({ entry: true, env: { XDG_CURRENT_DESKTOP: 'KDE' } });
    const { baseUrl } = (await snapshot(f)).gateway;
    expect((await fetch(`${baseUrl}/v1/models`)).status).toBe(200);

    const win = f.windows[0];
    if (!win) throw new Error('no window');
    const prefs = win.options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
    });
    const nav = fakeEvent({ url: 'https://evil.example/' });
    win.webContents.emit('will-navigate', nav);
    expect(nav.defaultPrevented).toBe(true);
    expect(win.webContents.windowOpenHandler?.({ url: 'https://evil.example/' })).toEqual({
      action: 'deny',
    });
    expect(f.permission.request).toBeTypeOf('function');
    expect(f.trays).toHaveLength(1);
    const menu = JSON.stringify(f.trays[0]?.menu?.template);
    expect(menu).toContain('Quit Breakwater');
    expect(menu).toContain('Open logs');
    expect(f.calls.some(([c]) => c === 'Menu.setApplicationMenu')).toBe(true);

    // Closing hides the window; the gateway keeps serving.
    win.show();
    expect(win.clickClose().defaultPrevented).toBe(true);
    expect(win.visible).toBe(false);
    expect((await fetch(`${baseUrl}/v1/models`)).status).toBe(200);

    // A second start focuses this one.
    f.electron.app.emit('second-instance');
    expect(win.visible).toBe(true);
    expect(f.calls.some(([c]) => c === 'window.focus')).toBe(true);

    // Quit drains the engine, then exits.
    f.electron.app.quit();
    expect(await f.exit).toBe(0);
    await expect(fetch(`${baseUrl}/v1/models`)).rejects.toThrow();
    fake = null;
  });

  it('#5 grants the clipboard write to the app page only, nothing else', async () => {
    const f = await launch();
    const win = f.windows[0];
    const appUrl = win?.webContents.url ?? '';
    const ask = (permission: string, url: string) =>
      new Promise<boolean>((done) =>
        f.permission.request?.(win?.webContents, permission, done, { requestingUrl: url }),
      );
    expect(await ask('clipboard-sanitized-write', appUrl)).toBe(true);
    expect(await ask('clipboard-sanitized-write', 'https://evil.example/')).toBe(false);
    expect(await ask('media', appUrl)).toBe(false);
    expect(
      f.permission.check?.(win?.webContents, 'clipboard-sanitized-write', '', {
        requestingUrl: appUrl,
      }),
    ).toBe(true);
  });

  it('#4 Windows: toasts get the AppUserModelID of the installer (electron-builder appId)', async () => {
    const f = await launch({ platform: 'win32' });
    const appId = /^appId:\s*(\S+)/m.exec(
      readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8'),
    )?.[1];
    expect(f.calls).toContainEqual(['app.setAppUserModelId', appId]);
  });

  it('#6 GNOME without AppIndicator: closing minimizes instead of hiding', async () => {
    const f = await launch({ platform: 'linux', env: { XDG_CURRENT_DESKTOP: 'GNOME' } });
    const win = f.windows[0];
    win?.show();
    expect(win?.clickClose().defaultPrevented).toBe(true);
    expect(win?.visible).toBe(true);
    expect(win?.minimized).toBe(true);
    // The app menu keeps a visible way to quit.
    const file = JSON.stringify(f.calls.find(([c]) => c === 'Menu.setApplicationMenu'));
    expect(file).toContain('Quit Breakwater');
  });

  it('#7 a taken port: the error names port, config and data folder; retry moves to a free port', async () => {
    const port = await takenPort();
    const f = await launch({ args: ['--port', String(port)] });
    const error: StartupError = (await invoke(f, IpcChannel.getStartupError)).data;
    expect(error).toMatchObject({
      code: 'EADDRINUSE',
      port,
      configPath: join(dir, 'data', 'config.json'),
      dataDir: join(dir, 'data'),
    });
    expect(error.message).toContain(String(port));
    const retried = await invoke(f, IpcChannel.desktopAction, 'retry-other-port');
    expect(retried).toEqual({ ok: true, data: null });
    const { baseUrl, port: now } = (await snapshot(f)).gateway;
    expect(now).toBeGreaterThan(port);
    expect((await fetch(`${baseUrl}/v1/models`)).status).toBe(200);
    expect(f.calls).toContainEqual(['webContents.reload']);
    await invoke(f, IpcChannel.desktopAction, 'open-data-folder');
    expect(f.calls).toContainEqual(['shell.openPath', join(dir, 'data')]);
    expect(await invoke(f, IpcChannel.desktopAction, 'format-disk')).toMatchObject({ ok: false });
  });

  it('#9 sleep and wake: network failures do not count against the breaker', async () => {
    const dead = await takenPort();
    await new Promise((done) => servers.pop()?.close(done));
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        providers: [
          {
            id: 'dead',
            format: 'openai',
            baseUrl: `http://127.0.0.1:${dead}/v1`,
            authClass: 'api_key',
            connections: [{ id: 'dead-1', apiKey: 'sk-test-0123456789' }],
            models: ['m'],
          },
        ],
      }),
    );
    const f = await launch({ args: ['--config', config] });
    const { baseUrl } = (await snapshot(f)).gateway;
    const ask = () =>
      fetch(`${baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'dead/m', messages: [{ role: 'user', content: 'hi' }] }),
      }).then((r) => r.text());
    const failures = async () =>
      (await snapshot(f)).breakers.find((b) => b.provider === 'dead')?.failureCount ?? 0;

    await ask();
    expect(await failures()).toBe(1);
    const power = f.electron.powerMonitor;
    power.emit('suspend');
    await ask();
    power.emit('resume');
    await ask();
    expect(await failures()).toBe(1);
  });

  it('the Resilience page clears learnt request fixes through IPC: one model, or all', async () => {
    const upstream = await startFakeUpstream();
    try {
      const config = join(dir, 'config.json');
      writeFileSync(
        config,
        JSON.stringify({
          providers: ['oa', 'ob'].map((id) => ({
            id,
            format: 'openai',
            baseUrl: `${upstream.url}/v1`,
            authClass: 'api_key',
            connections: [{ id: `${id}-1`, apiKey: 'sk-test-0123456789' }],
            models: ['m'],
          })),
        }),
      );
      const f = await launch({ args: ['--config', config] });
      const { baseUrl } = (await snapshot(f)).gateway;
      await learnFixes(baseUrl, upstream, ['oa/m', 'ob/m']);
      const learnt = async () =>
        ((await snapshot(f)).learnedFixes ?? []).map((l) => `${l.provider}/${l.model}`).sort();
      expect(await learnt()).toEqual(['oa/m', 'ob/m']);

      const action = actionChannel('clearLearnedFixes');
      expect(await invoke(f, action, { model: 'm' })).toMatchObject({
        ok: false,
        field: 'provider',
      });
      expect(await invoke(f, action, { provider: 42 })).toMatchObject({ ok: false });
      expect(await invoke(f, action, { provider: 'oa', model: 'm' })).toEqual({
        ok: true,
        data: { cleared: 1 },
      });
      expect(await learnt()).toEqual(['ob/m']);
      expect(await invoke(f, action)).toEqual({ ok: true, data: { cleared: 1 } });
      expect(await learnt()).toEqual([]);
    } finally {
      await upstream.close();
    }
  });

  it('#9 Windows logoff: session-end writes the buffered request log at once', async () => {
    const f = await launch({ platform: 'win32' });
    const { baseUrl } = (await snapshot(f)).gateway;
    await fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'no-such-model', messages: [] }),
    }).then((r) => r.text());
    f.windows[0]?.emit('session-end');
    const db = new Database(join(dir, 'data', 'breakwater.db'), { readonly: true });
    try {
      const { n } = db.prepare('SELECT count(*) AS n FROM request_log').get() as { n: number };
      expect(n).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  it('#10 a renderer crash reloads the page, a crash loop does not, and main errors go to the log', async () => {
    const f = await launch();
    const contents = f.windows[0]?.webContents;
    const reloads = () => f.calls.filter(([c]) => c === 'webContents.reload').length;
    contents?.emit('render-process-gone', fakeEvent(), { reason: 'crashed', exitCode: 11 });
    expect(reloads()).toBe(1);
    contents?.emit('render-process-gone', fakeEvent(), { reason: 'clean-exit', exitCode: 0 });
    for (let i = 0; i < 5; i++) {
      contents?.emit('render-process-gone', fakeEvent(), { reason: 'oom', exitCode: 1 });
    }
    expect(reloads()).toBe(3);
    // What Node does with an error nobody caught (emitting it by hand keeps the test runner alive).
    (process.emit as (event: string, ...args: unknown[]) => boolean)(
      'uncaughtException',
      new Error('boom in main'),
      'uncaughtException',
    );
    await vi.waitFor(() => expect(logText()).toContain('boom in main'));
  });

  it('#11 packaged: no DevTools in the window nor in the menu', async () => {
    const f = await launch({ packaged: true });
    const prefs = f.windows[0]?.options.webPreferences as Record<string, unknown>;
    expect(prefs.devTools).toBe(false);
    const menu = JSON.stringify(f.calls.find(([c]) => c === 'Menu.setApplicationMenu'));
    expect(menu).not.toContain('toggleDevTools');
    expect(menu).toContain('editMenu');
  });

  it('#12 Linux basic_text keyring: keys are not "sealed", and the log says why', async () => {
    await launch({ platform: 'linux', backend: 'basic_text' });
    await vi.waitFor(() => expect(logText()).toMatch(/basic_text.*unsealed/));
  });

  it('#8 a notification is held until clicked or closed, and its click opens the page', async () => {
    const f = await launch();
    const tray = await import('../../src/main/shell/tray');
    const notice = {
      kind: 'circuit-open' as const,
      title: 'openai: circuit open',
      body: 'x',
      providers: ['openai'],
      page: 'resilience' as const,
    };
    let clicked = 0;
    tray.showNotice(notice, () => clicked++);
    tray.showNotice(notice, () => clicked++);
    expect(tray.heldNotices()).toBe(2);
    f.notifications[0]?.emit('click');
    f.notifications[1]?.emit('close');
    expect(clicked).toBe(1);
    expect(tray.heldNotices()).toBe(0);
  });

  it('a gateway key at 80 % of a budget: one notification per window, and its click opens the usage page', async () => {
    const upstream = await startFakeUpstream();
    try {
      const config = join(dir, 'config.json');
      const key = 'bw-desktop-budget-0123456789';
      writeFileSync(
        config,
        JSON.stringify({
          gateway: { apiKeys: [{ name: 'ci', key, limits: { tokensPerDay: 100 } }] },
          providers: [
            {
              id: 'p',
              format: 'openai',
              baseUrl: `${upstream.url}/v1`,
              authClass: 'api_key',
              connections: [{ id: 'p-1', apiKey: 'sk-test-0123456789' }],
              models: ['m'],
            },
          ],
        }),
      );
      const f = await launch({ args: ['--config', config] });
      const { baseUrl } = (await snapshot(f)).gateway;
      upstream.setDefault({ usage: { input: 20, output: 25 } });
      const ask = () =>
        fetch(`${baseUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ model: 'p/m', messages: [{ role: 'user', content: 'hi' }] }),
        }).then((r) => r.status);
      // 45, then 90 of 100 tokens: the second crosses 80 %; the third is past it already.
      expect(await ask()).toBe(200);
      expect(await ask()).toBe(200);
      const budgetNotices = () =>
        f.notifications.filter((n) => JSON.stringify(n.options).includes('of its budget'));
      await vi.waitFor(() => expect(budgetNotices()).toHaveLength(1), { timeout: 4000 });
      expect(budgetNotices()[0]?.options).toMatchObject({
        title: 'Gateway key "ci": 90 % of its budget',
        body: expect.stringContaining('90 of 100 tokens per day used'),
      });
      await ask();
      await new Promise((r) => setTimeout(r, 1500));
      expect(budgetNotices()).toHaveLength(1);
      budgetNotices()[0]?.emit('click');
      expect(f.calls.some(([c, ...a]) => c === 'webContents.send' && a.includes('usage'))).toBe(
        true,
      );
    } finally {
      await upstream.close();
    }
  });

  it('#1 from source, the Electron build of better-sqlite3 named by npm start is the one loaded', async () => {
    const missing = join(dir, 'electron-native', 'better_sqlite3.node');
    const f = await launch({ env: { BREAKWATER_SQLITE_BINDING: missing } });
    const error: StartupError = (await invoke(f, IpcChannel.getStartupError)).data;
    expect(error.message).toContain(missing);
    f.electron.app.quit();
    await f.exit;
    // A packaged app carries it in its own node_modules and ignores the variable.
    const packaged = await launch({ packaged: true, env: { BREAKWATER_SQLITE_BINDING: missing } });
    expect((await invoke(packaged, IpcChannel.getStartupError)).data).toBeNull();
  });

  it('#12 a key sealed by the desktop app: breakwater serve on the same data folder says why it cannot read it', async () => {
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        providers: [
          {
            id: 'p',
            format: 'openai',
            baseUrl: 'http://127.0.0.1:9/v1',
            authClass: 'api_key',
            connections: [{ id: 'p-1', apiKey: 'sk-test-sealed-0123456789' }],
            models: ['m'],
          },
        ],
      }),
    );
    const f = await launch({ platform: 'linux', args: ['--config', config] });
    f.electron.app.quit();
    await f.exit;
    fake = null;
    const { createEngine } = await import('../../src/main/engine/index');
    const errors: string[] = [];
    const log = { debug() {}, info() {}, warn() {}, error: (m: string) => errors.push(m) };
    const headless = createEngine({ dataDir: join(dir, 'data'), port: 0, log });
    await headless.stop();
    expect(errors.join('\n')).toMatch(
      /p-1: its key was sealed with the OS keychain by the Breakwater desktop app/,
    );
    expect(errors.join('\n')).not.toContain('sk-test-sealed');
  });

  it('remembers where the window was', async () => {
    const f = await launch();
    f.windows[0]?.emit('resize');
    const file = join(dir, 'data', 'desktop.json');
    await vi.waitFor(() =>
      expect(JSON.parse(readFileSync(file, 'utf8')).bounds).toEqual({
        x: 10,
        y: 20,
        width: 900,
        height: 600,
      }),
    );
    f.electron.app.quit();
    await f.exit;
    const again = await launch();
    expect(again.windows[0]?.options).toMatchObject({ x: 10, y: 20, width: 900, height: 600 });
  });

  it('Connect and Undo an agent over IPC: the CLI’s writer, in the home folder', async () => {
    const saved = process.env.HOME;
    const home = join(dir, 'home');
    process.env.HOME = home;
    try {
      const f = await launch();
      const config = join(home, '.codex', 'config.toml');
      const connected = await invoke(f, actionChannel('connectAgent'), 'codex');
      expect(connected).toMatchObject({ ok: true, data: { agent: 'codex', written: [config] } });
      const { baseUrl } = (await snapshot(f)).gateway;
      expect(readFileSync(config, 'utf8')).toContain(`base_url = "${baseUrl}/v1"`);
      expect(await invoke(f, actionChannel('undoAgent'), 'codex')).toMatchObject({
        ok: true,
        data: { removed: [config] },
      });
      expect(existsSync(config)).toBe(false);
      expect(await invoke(f, actionChannel('connectAgent'), 42)).toMatchObject({
        ok: false,
        error: 'invalid connectAgent payload: agent must be a non-empty string',
      });
      expect(await invoke(f, actionChannel('undoAgent'), 'vim')).toMatchObject({
        ok: false,
        code: 'not_found',
      });
    } finally {
      process.env.HOME = saved;
    }
  });
  it('update checks: never in a development run, off without a feed, and the tray says so', async () => {
    const dev = await launch({ env: { BREAKWATER_UPDATE_URL: 'https://updates.example/' } });
    await vi.waitFor(() => expect(trayItem(dev, 'Updates: development build')).toBeDefined());
    expect(trayItem(dev, 'Check for updates…')?.enabled).toBe(false);
    dev.electron.app.quit();
    await dev.exit;

    packagedResources();
    const f = await launch({ packaged: true });
    await vi.waitFor(() => expect(trayItem(f, 'Updates not configured')).toBeDefined());
    expect(f.calls).toContainEqual([
      'app.setAboutPanelOptions',
      expect.objectContaining({ credits: 'Updates not configured' }),
    ]);
    expect(f.calls.filter(([c]) => String(c).startsWith('updater.'))).toEqual([]);
  });

  it('update checks with a feed: at start and from the tray, a notice when downloaded, install on request', async () => {
    packagedResources();
    const f = await launch({
      packaged: true,
      env: { BREAKWATER_UPDATE_URL: 'https://updates.example/breakwater/' },
    });
    await vi.waitFor(() => expect(f.calls).toContainEqual(['updater.checkForUpdates']));
    expect(f.calls).toContainEqual([
      'updater.setFeedURL',
      { provider: 'generic', url: 'https://updates.example/breakwater/' },
    ]);
    expect(f.updater.autoInstallOnAppQuit).toBe(true);
    const checks = () => f.calls.filter(([c]) => c === 'updater.checkForUpdates').length;

    f.updater.emit('update-not-available', { version: '0.1.0' });
    await vi.waitFor(() => expect(trayItem(f, 'Up to date')).toBeDefined());
    trayItem(f, 'Check for updates…')?.click?.();
    expect(checks()).toBe(2);

    f.updater.emit('update-available', { version: '9.9.9' });
    f.updater.emit('update-downloaded', { version: '9.9.9' });
    await vi.waitFor(() => expect(trayItem(f, 'Restart to update')).toBeDefined());
    expect(trayItem(f, 'Update 9.9.9 ready')).toBeDefined();
    expect(f.calls).toContainEqual([
      'notification.show',
      expect.objectContaining({ title: 'Breakwater 9.9.9 is ready' }),
    ]);
    expect(f.calls).not.toContainEqual(['updater.quitAndInstall']);
    trayItem(f, 'Restart to update')?.click?.();
    expect(f.calls).toContainEqual(['updater.quitAndInstall']);
  });

  it('the tray switches the active combo, and a request for "default" follows it', async () => {
    const primary = await startFakeUpstream();
    const backup = await startFakeUpstream();
    try {
      const config = join(dir, 'config.json');
      writeFileSync(config, JSON.stringify(standardConfig(primary, backup)));
      const f = await launch({ args: ['--config', config] });
      const { baseUrl } = (await snapshot(f)).gateway;
      const ask = (model: string) =>
        fetch(`${baseUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
        });
      const menu = trayItem(f, /^Active combo: /);
      expect(menu?.label).toBe('Active combo: none');
      expect(menu?.submenu?.map((i) => [i.label, i.type, i.checked])).toEqual([
        ['None', 'radio', true],
        ['coder', 'radio', false],
        ['claude', 'radio', false],
      ]);
      expect((await ask('default')).status).toBe(404);

      menu?.submenu?.[2]?.click?.();
      await vi.waitFor(() => expect(trayItem(f, 'Active combo: claude')).toBeDefined());
      expect((await snapshot(f)).gateway.activeCombo).toBe('claude');
      expect((await ask('default')).status).toBe(200);
      expect(primary.requests.at(-1)?.body.model).toBe('claude-test');

      trayItem(f, /^Active combo: /)?.submenu?.[1]?.click?.();
      await vi.waitFor(() => expect(trayItem(f, 'Active combo: coder')).toBeDefined());
      expect((await ask('default')).status).toBe(200);
      expect(primary.requests.at(-1)?.body.model).toBe('gpt-test');

      // A combo added from the dashboard shows in the menu.
      const added = await invoke(f, 'breakwater:action:saveCombo', {
        name: 'solo',
        strategy: 'priority',
        targets: ['oa2/gpt-backup'],
      });
      expect(added.ok).toBe(true);
      await vi.waitFor(() =>
        expect(trayItem(f, /^Active combo: /)?.submenu?.map((i) => i.label)).toContain('solo'),
      );
    } finally {
      await primary.close();
      await backup.close();
    }
  });

  it('changing the port from the dashboard: served on the new one, the tray and the window follow', async () => {
    const f = await launch();
    const before = (await snapshot(f)).gateway.baseUrl;
    const free = await takenPort();
    await new Promise((done) => servers.pop()?.close(done));
    const moved = await invoke(f, 'breakwater:action:setGatewayAddress', { port: free });
    expect(moved).toEqual({
      ok: true,
      data: { host: '127.0.0.1', port: free, baseUrl: `http://127.0.0.1:${free}` },
    });
    expect((await fetch(`http://127.0.0.1:${free}/v1/models`)).status).toBe(200);
    await expect(fetch(`${before}/v1/models`)).rejects.toThrow();
    expect(f.calls).toContainEqual(['webContents.reload']);
    expect(f.calls).toContainEqual([
      'tray.setToolTip',
      expect.stringContaining(`http://127.0.0.1:${free}`),
    ]);
    expect(JSON.stringify(trayMenu(f))).toContain(`Copy base URL (http://127.0.0.1:${free})`);

    const taken = await takenPort();
    const refused = await invoke(f, 'breakwater:action:setGatewayAddress', { port: taken });
    expect(refused).toMatchObject({ ok: false, code: 'address_in_use', field: 'port' });
    expect((await snapshot(f)).gateway.port).toBe(free);
    const bad = await invoke(f, 'breakwater:action:setGatewayAddress', 4242);
    expect(bad).toMatchObject({ ok: false, error: expect.stringMatching(/must be an object/) });
  });
});
