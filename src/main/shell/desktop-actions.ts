// What the window's startup-error page, the tray and the app menu ask of the desktop itself:
// another port, or a file or folder opened in the OS.
import { existsSync, writeFileSync } from 'node:fs';
import { shell } from 'electron';
import type { DesktopAction, StartupError } from '../../shared/ipc';
import type { DesktopSession } from './desktop-session';
import type { LogFile } from './log-file';

function openPath(log: LogFile, path: string): void {
  void shell.openPath(path).then((problem) => {
    if (problem) log.error(`could not open ${path}: ${problem}`);
  });
}

/** Does the action; answers with the startup error left afterwards (null when serving). */
export async function desktopAction(
  s: DesktopSession,
  action: DesktopAction,
): Promise<StartupError | null> {
  switch (action) {
    case 'retry-other-port': {
      const error = await s.gateway.retryOnOtherPort();
      s.tray?.update();
      // The page started against a gateway that was not serving: start it over.
      if (!error) s.main?.window.webContents.reload();
      return error;
    }
    case 'open-data-folder':
      openPath(s.log, s.dataDir);
      break;
    case 'open-logs':
      openPath(s.log, s.log.path);
      break;
    case 'edit-config':
      // An empty config is valid; the database stays the source of truth for what it omits.
      if (!existsSync(s.configPath)) writeFileSync(s.configPath, '{}\n', { mode: 0o600 });
      openPath(s.log, s.configPath);
      break;
  }
  return s.gateway.currentError();
}
