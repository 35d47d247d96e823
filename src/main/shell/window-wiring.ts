// The main window as the desktop host runs it: hidden at login, hidden on close where the tray
// keeps the app reachable, and its place on screen saved in the prefs.
import { app } from 'electron';
import { savePrefs } from './desktop-prefs';
import type { DesktopSession } from './desktop-session';
import { closeHidesWindow, startsHidden } from './policy';
import { createMainWindow, type MainWindow } from './window';

export function openMainWindow(s: DesktopSession): MainWindow {
  return createMainWindow({
    mainDir: s.mainDir,
    isQuitting: () => s.quitting,
    closeHides: () =>
      closeHidesWindow({
        platform: s.platform,
        trayCreated: s.tray !== null,
        env: s.env,
        closeToTray: s.prefs.closeToTray,
      }),
    startHidden: startsHidden(
      s.argv,
      s.platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin,
    ),
    devTools: !app.isPackaged,
    prefs: s.prefs,
    onPlaced: (placed) => {
      s.prefs = { ...s.prefs, ...placed };
      savePrefs(s.prefsFile, s.prefs).catch((err: unknown) =>
        s.log.warn(`could not save the window's place: ${String(err)}`),
      );
    },
    onCrash: (message) => s.log.error(message),
  });
}
