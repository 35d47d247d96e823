import { describe, expect, it } from 'vitest';
import { appMenuTemplate } from '../../src/main/shell/app-menu';
import { describeStartupError } from '../../src/main/shell/decisions';
import { parsePrefs, placeOnScreen } from '../../src/main/shell/desktop-prefs';
import {
  closeHidesWindow,
  linuxAutostartEntry,
  linuxTrayUnreliable,
  loginItem,
  nextPorts,
  permissionGranted,
  secretSealing,
  shouldReload,
  startsHidden,
} from '../../src/main/shell/policy';

const APP = 'file:///opt/Breakwater/resources/app.asar/out/renderer/index.html';

describe('permissions', () => {
  it('grants only the clipboard write, only to the app page', () => {
    expect(permissionGranted('clipboard-sanitized-write', `${APP}#/overview`, APP)).toBe(true);
    expect(permissionGranted('clipboard-sanitized-write', 'https://evil.example/', APP)).toBe(
      false,
    );
    expect(permissionGranted('clipboard-sanitized-write', undefined, APP)).toBe(false);
    expect(permissionGranted('clipboard-read', APP, APP)).toBe(false);
    expect(permissionGranted('notifications', APP, APP)).toBe(false);
  });
});

describe('closing the window', () => {
  const base = { trayCreated: true, env: {}, closeToTray: undefined };
  it('hides to the tray on macOS, Windows and Linux desktops that show tray icons', () => {
    expect(closeHidesWindow({ ...base, platform: 'darwin' })).toBe(true);
    expect(closeHidesWindow({ ...base, platform: 'win32' })).toBe(true);
    expect(
      closeHidesWindow({ ...base, platform: 'linux', env: { XDG_CURRENT_DESKTOP: 'KDE' } }),
    ).toBe(true);
    expect(
      closeHidesWindow({
        ...base,
        platform: 'linux',
        env: { XDG_CURRENT_DESKTOP: 'ubuntu:GNOME' },
      }),
    ).toBe(true);
  });
  it('only minimizes on stock GNOME or without a tray, unless desktop.json says otherwise', () => {
    const gnome = { ...base, platform: 'linux' as const, env: { XDG_CURRENT_DESKTOP: 'GNOME' } };
    expect(linuxTrayUnreliable(gnome.env)).toBe(true);
    expect(closeHidesWindow(gnome)).toBe(false);
    expect(closeHidesWindow({ ...gnome, closeToTray: true })).toBe(true);
    expect(closeHidesWindow({ ...base, platform: 'win32', trayCreated: false })).toBe(false);
    expect(
      closeHidesWindow({ ...base, platform: 'win32', trayCreated: false, closeToTray: true }),
    ).toBe(false);
  });
});

describe('renderer crashes', () => {
  it('reloads up to three times a minute, never after a clean exit', () => {
    let times: number[] = [];
    const at = (now: number, reason = 'crashed') => {
      const d = shouldReload(reason, times, now);
      times = d.times;
      return d.reload;
    };
    expect(at(0, 'clean-exit')).toBe(false);
    expect([at(1), at(2), at(3), at(4)]).toEqual([true, true, true, false]);
    expect(at(60_002)).toBe(true);
  });
});

describe('launch at login', () => {
  it('starts hidden when the login item launched it', () => {
    expect(startsHidden(['electron', '.', '--hidden'], false)).toBe(true);
    expect(startsHidden(['electron', '.'], true)).toBe(true);
    expect(startsHidden(['electron', '.'], false)).toBe(false);
    expect(loginItem(true, 'darwin')).toEqual({ openAtLogin: true, openAsHidden: true });
    expect(loginItem(true, 'win32')).toEqual({ openAtLogin: true, args: ['--hidden'] });
  });
  it('writes a Linux autostart entry that starts hidden, quoting paths as the spec says', () => {
    const entry = linuxAutostartEntry(['/home/u/Apps/Breakwater 1.0.AppImage']);
    expect(entry).toContain('[Desktop Entry]\nType=Application\n');
    expect(entry).toContain('Exec="/home/u/Apps/Breakwater 1.0.AppImage" --hidden\n');
    expect(linuxAutostartEntry(['/opt/bw/breakwater'])).toContain(
      'Exec=/opt/bw/breakwater --hidden',
    );
    expect(linuxAutostartEntry(['/tmp/100%$x'])).toContain('Exec="/tmp/100%%\\$x" --hidden');
  });
});

describe('sealing provider keys', () => {
  it('seals with a real keychain, warns and does not pretend with basic_text or none', () => {
    expect(secretSealing({ available: true, backend: 'gnome_libsecret' })).toEqual({
      seal: true,
      warning: null,
    });
    expect(secretSealing({ available: true, backend: null }).seal).toBe(true);
    const basic = secretSealing({ available: true, backend: 'basic_text' });
    expect(basic.seal).toBe(false);
    expect(basic.warning).toMatch(/basic_text.*unsealed/);
    expect(secretSealing({ available: false, backend: null }).seal).toBe(false);
  });
});

describe('the port-taken screen', () => {
  it('tries the next ports, never past 65535', () => {
    expect(nextPorts(4141, 3)).toEqual([4142, 4143, 4144]);
    expect(nextPorts(65534)).toEqual([65535]);
  });
  it('names the address, the config file to change and keeps them for the window', () => {
    const e = describeStartupError({ code: 'EADDRINUSE' }, 'listen', {
      host: '127.0.0.1',
      port: 4141,
      configPath: '/home/u/.config/breakwater/config.json',
      dataDir: '/home/u/.config/breakwater',
    });
    expect(e.code).toBe('EADDRINUSE');
    expect(e.message).toContain('127.0.0.1:4141');
    expect(e.message).toContain('/home/u/.config/breakwater/config.json');
    expect(e).toMatchObject({ port: 4141, dataDir: '/home/u/.config/breakwater' });
  });
  it('explains a native module built for Node under Electron', () => {
    const e = describeStartupError(
      new Error('was compiled against NODE_MODULE_VERSION 115. This version requires 140'),
      'engine',
    );
    expect(e.code).toBe('native-module');
    expect(e.message).toContain('npm start');
  });
});

describe('remembered window place', () => {
  it('keeps valid fields of desktop.json and ignores the rest', () => {
    expect(parsePrefs('not json')).toEqual({});
    expect(
      parsePrefs(
        JSON.stringify({
          bounds: { x: 1, y: 2, width: 800, height: 600 },
          maximized: 'yes',
          closeToTray: false,
        }),
      ),
    ).toEqual({ bounds: { x: 1, y: 2, width: 800, height: 600 }, closeToTray: false });
    expect(parsePrefs(JSON.stringify({ bounds: { x: 1, y: 2, width: -5, height: 600 } }))).toEqual(
      {},
    );
  });
  it('drops a place on a monitor that is gone', () => {
    const screen = [{ x: 0, y: 0, width: 1920, height: 1080 }];
    const onScreen = { x: 100, y: 100, width: 800, height: 600 };
    expect(placeOnScreen(onScreen, screen)).toEqual(onScreen);
    expect(placeOnScreen({ ...onScreen, x: 3000 }, screen)).toBeUndefined();
  });
});

describe('application menu', () => {
  const actions = { openLogs() {}, openDataFolder() {}, editConfig() {}, quit() {} };
  const roles = (t: unknown) => JSON.stringify(t);
  it('has DevTools only in development', () => {
    expect(roles(appMenuTemplate('linux', false, actions))).toContain('toggleDevTools');
    expect(roles(appMenuTemplate('linux', true, actions))).not.toContain('toggleDevTools');
    expect(roles(appMenuTemplate('darwin', true, actions))).not.toContain('toggleDevTools');
  });
  it('always has Quit, the Edit roles and an About entry', () => {
    for (const platform of ['darwin', 'win32', 'linux'] as const) {
      const menu = roles(appMenuTemplate(platform, true, actions));
      expect(menu).toContain('Quit Breakwater');
      expect(menu).toContain('editMenu');
      expect(menu).toContain('"about"');
    }
  });
});
