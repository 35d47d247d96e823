// The tray icon, its tooltip and context menu, and the desktop notifications. Everything they
// show is decided in tray-state.ts and notifications.ts; this file only talks to Electron.
import { join } from 'node:path';
import { app, clipboard, Menu, Notification, nativeImage, Tray } from 'electron';
import type { EngineEvent } from '../../shared/contract';
import { createEventBatcher } from './decisions';
import { openAtLogin } from './login-item';
import {
  decideNotifications,
  initialNotifyState,
  NOTIFY_BATCH_MS,
  type Notice,
} from './notifications';
import {
  type TrayAction,
  type TrayInput,
  trayIconFile,
  trayLevel,
  trayMenu,
  trayTooltip,
} from './tray-state';

/** The tray re-reads the snapshot this often too: expired timers show without any event. */
const TRAY_REFRESH_MS = 5000;

export interface TrayOptions {
  resourcesDir: string;
  input(): TrayInput;
  onAction(action: TrayAction): void;
  /** A combo picked in the active-combo submenu ('' for none). */
  onCombo(name: string): void;
  onNotice(notice: Notice): void;
}

export interface ShellTray {
  /** Re-reads the input; rebuilds icon, tooltip and menu when they changed. */
  update(): void;
  /** Feeds engine events to the notification coalescer. */
  push(event: EngineEvent): void;
  dispose(): void;
}

/** Where `resources/` is: next to the app in development, in the package's resources when built. */
export function resourcesDir(mainDir: string): string {
  return app.isPackaged
    ? join(process.resourcesPath, 'resources')
    : join(mainDir, '..', '..', 'resources');
}

export function createShellTray(opts: TrayOptions): ShellTray {
  const tray = new Tray(nativeImage.createEmpty());
  let lastIcon = '';
  let lastMenu = '';
  let lastTooltip = '';

  const update = () => {
    const input = opts.input();
    const icon = trayIconFile(trayLevel(input), process.platform);
    if (icon !== lastIcon) {
      lastIcon = icon;
      const image = nativeImage.createFromPath(join(opts.resourcesDir, icon));
      if (process.platform === 'darwin') image.setTemplateImage(true);
      tray.setImage(image);
    }
    const tooltip = trayTooltip(input);
    if (tooltip !== lastTooltip) {
      lastTooltip = tooltip;
      tray.setToolTip(tooltip);
    }
    const items = trayMenu(input, { openAtLogin: openAtLogin() });
    const key = JSON.stringify(items);
    if (key === lastMenu) return;
    lastMenu = key;
    tray.setContextMenu(
      Menu.buildFromTemplate(
        items.map((item) => {
          if (item.kind === 'separator') return { type: 'separator' as const };
          if (item.kind === 'status') return { label: item.label, enabled: false };
          if (item.kind === 'combos') {
            return {
              label: item.label,
              submenu: item.combos.map((c) => ({
                label: c.name || 'None',
                type: 'radio' as const,
                checked: c.active,
                click: () => opts.onCombo(c.name),
              })),
            };
          }
          return {
            label: item.label,
            enabled: item.enabled,
            ...(item.checked !== undefined
              ? { type: 'checkbox' as const, checked: item.checked }
              : {}),
            click: () => opts.onAction(item.action),
          };
        }),
      ),
    );
  };

  let notifyState = initialNotifyState;
  const batcher = createEventBatcher<EngineEvent>({
    intervalMs: NOTIFY_BATCH_MS,
    maxBatch: 5000,
    send: (batch) => {
      const decided = decideNotifications(notifyState, batch, Date.now());
      notifyState = decided.state;
      if (Notification.isSupported()) for (const n of decided.notices) opts.onNotice(n);
      update();
    },
  });
  const timer = setInterval(update, TRAY_REFRESH_MS);
  tray.on('click', () => opts.onAction('open-dashboard'));
  update();

  return {
    update,
    push: (event) => batcher.push(event),
    dispose() {
      clearInterval(timer);
      batcher.dispose();
      tray.destroy();
    },
  };
}

// A Notification the JavaScript side no longer references is garbage-collected, and its click
// goes nowhere: each shown one is held here until it is clicked, closed or fails.
const liveNotices = new Set<Notification>();

/** How many notifications are still held (for tests). */
export function heldNotices(): number {
  return liveNotices.size;
}

/** Shows one notice; a click runs `onClick` (reveal the window on the resilience page). */
export function showNotice(notice: Notice, onClick: () => void): void {
  const n = new Notification({
    title: notice.title,
    body: notice.body,
    silent: notice.kind === 'circuit-recovered',
  });
  liveNotices.add(n);
  const forget = () => liveNotices.delete(n);
  n.on('click', () => {
    forget();
    onClick();
  });
  n.on('close', forget);
  n.on('failed', forget);
  n.show();
}

export function copyText(text: string): void {
  clipboard.writeText(text);
}
