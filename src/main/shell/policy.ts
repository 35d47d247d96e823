// Pure rules of the desktop shell on real desktops: permissions, what closing the window does,
// crash reloads, launch at login, sealing keys, the next port to try. No 'electron' import here.

import { isAppUrl } from './decisions';

/** Windows ties toasts to this id; it must equal `appId` in electron-builder.yml. */
export const APP_USER_MODEL_ID = 'dev.breakwater.app';

/** Passed by the login item: start in the tray without showing the window. */
export const HIDDEN_FLAG = '--hidden';

/**
 * The one browser permission the page needs: writing to the clipboard (its Copy buttons), and
 * only for the app's own page. Everything else (camera, notifications, …) is refused.
 */
export function permissionGranted(
  permission: string,
  requestingUrl: string | null | undefined,
  appUrl: string,
): boolean {
  return (
    permission === 'clipboard-sanitized-write' &&
    typeof requestingUrl === 'string' &&
    isAppUrl(requestingUrl, appUrl)
  );
}

/**
 * GNOME shows no tray icons without the AppIndicator extension, which stock GNOME (Fedora,
 * Debian, Arch) lacks and Ubuntu ships. Electron cannot tell whether the icon is visible.
 */
export function linuxTrayUnreliable(env: NodeJS.ProcessEnv): boolean {
  const desktops = (env.XDG_CURRENT_DESKTOP ?? '').toLowerCase().split(':');
  return desktops.includes('gnome') && !desktops.includes('ubuntu') && !desktops.includes('unity');
}

/**
 * Whether closing the window hides it (the tray brings it back) or only minimizes it. Hiding
 * without a visible tray icon would leave an invisible app holding the port, so on Linux it
 * needs a tray that was created on a desktop known to show it; `closeToTray` (desktop.json)
 * overrides the guess either way.
 */
export function closeHidesWindow(input: {
  platform: NodeJS.Platform;
  trayCreated: boolean;
  env: NodeJS.ProcessEnv;
  closeToTray: boolean | undefined;
}): boolean {
  if (!input.trayCreated) return false;
  if (input.closeToTray !== undefined) return input.closeToTray;
  return input.platform !== 'linux' || !linuxTrayUnreliable(input.env);
}

/** A renderer that keeps crashing is not reloaded more than this often. */
export const CRASH_RELOADS = { max: 3, windowMs: 60_000 };

/** Whether to reload after a renderer crash at `now`, given the earlier reload times. */
export function shouldReload(
  reason: string,
  earlier: readonly number[],
  now: number,
): { reload: boolean; times: number[] } {
  const times = earlier.filter((t) => now - t < CRASH_RELOADS.windowMs);
  if (reason === 'clean-exit' || times.length >= CRASH_RELOADS.max) return { reload: false, times };
  return { reload: true, times: [...times, now] };
}

/** Launched by the login item: stay in the tray. */
export function startsHidden(argv: readonly string[], wasOpenedAtLogin: boolean): boolean {
  return wasOpenedAtLogin || argv.includes(HIDDEN_FLAG);
}

/** `app.setLoginItemSettings` for launch at login, starting hidden (macOS and Windows). */
export function loginItem(open: boolean, platform: NodeJS.Platform) {
  return platform === 'darwin'
    ? { openAtLogin: open, openAsHidden: true }
    : { openAtLogin: open, args: [HIDDEN_FLAG] };
}

/** Quotes one argument of a desktop entry's Exec line (freedesktop.org's rules). */
function execArg(arg: string): string {
  const escaped = arg.replace(/%/g, '%%');
  return /[\s"'\\$`<>|&;*?#()~]/.test(escaped)
    ? `"${escaped.replace(/(["`$\\])/g, '\\$1')}"`
    : escaped;
}

/** The XDG autostart entry that launches the app at login on Linux, hidden in the tray. */
export function linuxAutostartEntry(command: readonly string[]): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Breakwater',
    'Comment=LLM gateway for local coding agents',
    `Exec=${[...command, HIDDEN_FLAG].map(execArg).join(' ')}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/**
 * Whether to seal provider keys with the OS keychain (safeStorage), and what to warn about.
 * Linux's `basic_text` backend (no keyring running) "encrypts" with a key built into Chromium:
 * sealing would only pretend, so keys stay as they are, protected by the file mode, and the log
 * says so.
 */
export function secretSealing(input: { available: boolean; backend: string | null }): {
  seal: boolean;
  warning: string | null;
} {
  if (!input.available) {
    return {
      seal: false,
      warning:
        'no OS keychain is available: provider keys are stored unsealed in breakwater.db, readable by anyone who can read the data folder',
    };
  }
  if (input.backend === 'basic_text') {
    return {
      seal: false,
      warning:
        'no keyring (libsecret / KWallet) is running, so Electron could only seal keys with a key every Chromium knows (basic_text): provider keys are stored unsealed in breakwater.db instead, protected by its file mode (0600); start a keyring to seal them',
    };
  }
  return { seal: true, warning: null };
}

/** Ports "retry on another port" tries, in order, after `taken`. */
export function nextPorts(taken: number, count = 20): number[] {
  const ports: number[] = [];
  for (let p = taken + 1; p <= 65535 && ports.length < count; p++) ports.push(p);
  return ports;
}
