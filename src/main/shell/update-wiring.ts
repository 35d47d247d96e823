// Update checks as the desktop host runs them: the feed from the build, the environment or the
// prefs; a notice when an update is ready; the tray redrawn when the state changes.
import { app } from 'electron';
import type { DesktopSession } from './desktop-session';
import { showNotice } from './tray';
import { createUpdateChecker, type UpdateChecker, type Updater, updateFeed } from './updates';

/** electron-updater, loaded only once a feed is configured (it reads the app's files at load). */
async function loadUpdater(): Promise<Updater> {
  // A CommonJS module: its exports may arrive named or only as `default`.
  const mod = await import('electron-updater');
  return mod.autoUpdater ?? mod.default.autoUpdater;
}

export function createDesktopUpdates(s: DesktopSession): UpdateChecker {
  return createUpdateChecker({
    feed: updateFeed({
      packaged: app.isPackaged,
      env: s.env,
      prefsUrl: s.prefs.updateUrl,
      resourcesPath: process.resourcesPath,
    }),
    load: loadUpdater,
    log: s.log,
    onReady: (version) =>
      showNotice(
        {
          kind: 'update-ready',
          title: `Breakwater ${version} is ready`,
          body: 'It installs when you quit, or choose "Restart to update" in the tray menu.',
          providers: [],
          page: 'overview',
        },
        () => s.main?.reveal(),
      ),
    onChange: () => s.tray?.update(),
  });
}
