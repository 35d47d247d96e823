// The application menu. Electron's default menu has "Toggle Developer Tools" even in a packaged
// app; this one has it only in development. Built as data, so it is tested without Electron.
import type { MenuItemConstructorOptions } from 'electron';

export interface AppMenuActions {
  openLogs(): void;
  openDataFolder(): void;
  editConfig(): void;
  quit(): void;
}

export function appMenuTemplate(
  platform: NodeJS.Platform,
  packaged: boolean,
  actions: AppMenuActions,
): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  const view: MenuItemConstructorOptions[] = [
    { role: 'reload' },
    ...(packaged ? [] : [{ role: 'forceReload' } as const, { role: 'toggleDevTools' } as const]),
    { type: 'separator' },
    { role: 'resetZoom' },
    { role: 'zoomIn' },
    { role: 'zoomOut' },
    { type: 'separator' },
    { role: 'togglefullscreen' },
  ];
  const quit: MenuItemConstructorOptions = {
    label: 'Quit Breakwater',
    accelerator: 'CmdOrCtrl+Q',
    click: () => actions.quit(),
  };
  return [
    ...(mac
      ? [
          {
            label: 'Breakwater',
            submenu: [
              { role: 'about' },
              { type: 'separator' },
              { role: 'hide' },
              { role: 'hideOthers' },
              { role: 'unhide' },
              { type: 'separator' },
              quit,
            ],
          } satisfies MenuItemConstructorOptions,
        ]
      : []),
    {
      label: 'File',
      submenu: [
        { label: 'Open Logs', click: () => actions.openLogs() },
        { label: 'Open Data Folder', click: () => actions.openDataFolder() },
        { label: 'Edit Config', click: () => actions.editConfig() },
        ...(mac ? [] : [{ type: 'separator' } as const, quit]),
      ],
    },
    // Cut, copy and paste in the forms need the Edit roles (macOS has no shortcuts without them).
    { role: 'editMenu' },
    { label: 'View', submenu: view },
    { role: 'windowMenu' },
    ...(mac ? [] : [{ label: 'Help', submenu: [{ role: 'about' } as const] }]),
  ];
}
