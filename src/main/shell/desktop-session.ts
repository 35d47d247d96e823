// What the desktop host's parts share: fixed at launch, or filled in as the app comes up. Each
// part reads the fields when it acts, never a copy, so a window or tray made later is seen.
import type { DesktopPrefs } from './desktop-prefs';
import type { GatewayHost } from './gateway-host';
import type { IpcTarget } from './ipc';
import type { LogFile } from './log-file';
import type { ShellTray } from './tray';
import type { UpdateChecker } from './updates';
import type { MainWindow } from './window';

export interface DesktopSession {
  /** Directory of the built main entry (`out/main`). */
  readonly mainDir: string;
  readonly platform: NodeJS.Platform;
  readonly env: NodeJS.ProcessEnv;
  readonly argv: readonly string[];
  readonly dataDir: string;
  readonly configPath: string;
  readonly prefsFile: string;
  readonly log: LogFile;
  readonly gateway: GatewayHost;
  prefs: DesktopPrefs;
  main: MainWindow | null;
  /** Null until made, and where the desktop has no tray. */
  tray: ShellTray | null;
  updates: UpdateChecker | null;
  /** Set by a quit, so closing the window then closes it instead of hiding it. */
  quitting: boolean;
  /** Unsubscribes from engine events, each set once its part started; shutdown calls them. */
  stopForwarding: (() => void) | null;
  stopTrayEvents: (() => void) | null;
  stopWatching: (() => void) | null;
  stopFollowing: (() => void) | null;
}

/** The window IPC pushes go to, while it exists. */
export function ipcTarget(s: DesktopSession): IpcTarget | null {
  const main = s.main;
  return main && !main.window.isDestroyed()
    ? { webContents: main.window.webContents, appUrl: main.appUrl }
    : null;
}
