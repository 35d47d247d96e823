// The tray as the desktop host runs it: what it shows, read from the engine each time it redraws,
// and what its menu items do.
import { app } from 'electron';
import { IpcChannel } from '../../shared/ipc';
import { desktopAction } from './desktop-actions';
import { type DesktopSession, ipcTarget } from './desktop-session';
import { push } from './ipc';
import { toggleOpenAtLogin } from './login-item';
import { copyText, createShellTray, resourcesDir, showNotice } from './tray';
import type { TrayAction } from './tray-state';
import { updateStatus } from './updates';

function trayInput(s: DesktopSession) {
  const engine = s.gateway.engine();
  const error = s.gateway.currentError();
  let snapshot = null;
  try {
    snapshot = engine && !error ? engine.snapshot() : null;
  } catch {
    snapshot = null;
  }
  let combos: string[] = [];
  try {
    combos = engine && !error ? engine.admin.listCombos().map((c) => c.name) : [];
  } catch {
    combos = [];
  }
  return {
    snapshot,
    startupError: error?.message ?? null,
    combos,
    ...(s.updates ? { updates: updateStatus(s.updates.state()) } : {}),
  };
}

/** The tray's active-combo switch: what the model "default" routes to ('' for none). */
function onCombo(s: DesktopSession, name: string): void {
  void s.gateway
    .engine()
    ?.actions.updateSettings({ 'routing.activeCombo': name || null })
    .then((r) => {
      if (!r.ok) s.log.error(`switching the active combo failed: ${r.error}`);
      s.tray?.update();
    });
}

function onTrayAction(s: DesktopSession, action: TrayAction): void {
  const engine = s.gateway.engine();
  switch (action) {
    case 'open-dashboard':
      s.main?.reveal();
      return;
    case 'copy-base-url': {
      const url = trayInput(s).snapshot?.gateway.baseUrl;
      if (url) copyText(url);
      return;
    }
    case 'pause':
    case 'resume':
      engine?.setPaused(action === 'pause');
      return;
    case 'reset-breakers':
      void engine?.actions.resetBreaker().then((r) => {
        if (!r.ok) s.log.error(`resetting breakers failed: ${r.error}`);
        s.tray?.update();
      });
      return;
    case 'toggle-login':
      toggleOpenAtLogin();
      s.tray?.update();
      return;
    case 'open-logs':
    case 'open-data-folder':
    case 'edit-config':
      void desktopAction(s, action);
      return;
    case 'check-updates':
      s.updates?.check();
      return;
    case 'install-update':
      s.updates?.install();
      return;
    case 'quit':
      app.quit();
      return;
  }
}

/** Makes the tray and feeds it engine events; logs instead where the desktop has none. */
export function startTray(s: DesktopSession): void {
  try {
    s.tray = createShellTray({
      resourcesDir: resourcesDir(s.mainDir),
      input: () => trayInput(s),
      onAction: (action) => onTrayAction(s, action),
      onCombo: (name) => onCombo(s, name),
      onNotice: (notice) =>
        showNotice(notice, () => {
          s.main?.reveal();
          push(ipcTarget(s), IpcChannel.navigate, notice.page);
        }),
    });
    s.stopTrayEvents = s.gateway.engine()?.onEvent((event) => s.tray?.push(event)) ?? null;
  } catch (err) {
    // Some Linux desktops have no tray; closing the window then only minimizes it.
    s.log.error(`no tray icon: ${String(err)}`);
  }
}
