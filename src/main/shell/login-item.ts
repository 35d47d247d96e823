// Launch at login, starting hidden in the tray. macOS and Windows have login items; Linux
// desktops read an XDG autostart entry (~/.config/autostart/breakwater.desktop).
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { app } from 'electron';
import { linuxAutostartEntry, loginItem } from './policy';

function autostartFile(): string {
  const config = process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config');
  return join(config, 'autostart', 'breakwater.desktop');
}

/** What starts this app again: the AppImage file, else Electron (plus the app folder from source). */
function launchCommand(): string[] {
  const binary = process.env.APPIMAGE ?? process.execPath;
  return app.isPackaged ? [binary] : [binary, app.getAppPath()];
}

/** Whether the app starts at login; null where the platform has no such thing. */
export function openAtLogin(): boolean | null {
  if (process.platform === 'linux') return existsSync(autostartFile());
  if (process.platform === 'darwin' || process.platform === 'win32') {
    return app.getLoginItemSettings().openAtLogin;
  }
  return null;
}

export function toggleOpenAtLogin(): void {
  const now = openAtLogin();
  if (now === null) return;
  if (process.platform !== 'linux') {
    app.setLoginItemSettings(loginItem(!now, process.platform));
    return;
  }
  const file = autostartFile();
  if (now) {
    rmSync(file, { force: true });
    return;
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, linuxAutostartEntry(launchCommand()));
}
