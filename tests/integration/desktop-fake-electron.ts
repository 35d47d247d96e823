// A fake `electron` module for running the real main process under plain Node: every object the
// shell touches, recording what it is asked to do. Tests install a fresh one per run with
// `resetFakeElectron`; `vi.mock('electron', …)` hands out `electronModule`, whose getters read the
// current fake, so a re-imported shell always sees the fresh one.
import { EventEmitter } from 'node:events';
import { join } from 'node:path';

export type Call = [string, ...unknown[]];

export interface FakeOptions {
  baseDir: string;
  packaged?: boolean;
  singleInstance?: boolean;
  encryption?: boolean;
  backend?: string;
}

type Handler = (...args: unknown[]) => unknown;

export class FakeWebContents extends EventEmitter {
  static nextId = 1;
  readonly id = FakeWebContents.nextId++;
  url = '';
  windowOpenHandler: ((d: { url: string }) => { action: string }) | null = null;
  constructor(private readonly calls: Call[]) {
    super();
  }
  send(channel: string, payload: unknown): void {
    this.calls.push(['webContents.send', channel, payload]);
  }
  setWindowOpenHandler(h: (d: { url: string }) => { action: string }): void {
    this.windowOpenHandler = h;
  }
  reload(): void {
    this.calls.push(['webContents.reload']);
  }
  getURL(): string {
    return this.url;
  }
  isDestroyed(): boolean {
    return false;
  }
}

/** An event object as Electron passes it: `preventDefault` is recorded. */
export function fakeEvent(extra: object = {}) {
  return {
    defaultPrevented: false,
    preventDefault() {
      this.defaultPrevented = true;
    },
    ...extra,
  };
}

export function createFake(opts: FakeOptions) {
  const calls: Call[] = [];
  const record = (...c: Call) => calls.push(c);
  const paths = new Map<string, string>();
  const windows: FakeWindow[] = [];
  const trays: FakeTray[] = [];
  const notifications: FakeNotification[] = [];
  const handlers = new Map<string, Handler>();
  let exited: (code: number) => void = () => {};
  const exit = new Promise<number>((done) => {
    exited = done;
  });

  const app = Object.assign(new EventEmitter(), {
    isPackaged: opts.packaged ?? false,
    setPath(name: string, path: string) {
      record('app.setPath', name, path);
      paths.set(name, path);
    },
    getPath(name: string) {
      if (name === 'logs') return join(paths.get('userData') ?? opts.baseDir, 'logs');
      return paths.get(name) ?? join(opts.baseDir, name);
    },
    requestSingleInstanceLock: () => opts.singleInstance ?? true,
    quit() {
      record('app.quit');
      const event = fakeEvent();
      app.emit('before-quit', event);
      if (!event.defaultPrevented) app.exit(0);
    },
    exit(code: number) {
      record('app.exit', code);
      exited(code);
    },
    whenReady: () => Promise.resolve(),
    getLoginItemSettings: () => ({ openAtLogin: false, wasOpenedAtLogin: false }),
    setLoginItemSettings: (s: unknown) => record('app.setLoginItemSettings', s),
    setAppUserModelId: (id: string) => record('app.setAppUserModelId', id),
    setAboutPanelOptions: (o: unknown) => record('app.setAboutPanelOptions', o),
  });

  class FakeWindow extends EventEmitter {
    readonly webContents = new FakeWebContents(calls);
    visible = false;
    minimized = false;
    destroyed = false;
    constructor(readonly options: Record<string, unknown>) {
      super();
      record('BrowserWindow', options);
      windows.push(this);
    }
    loadURL(url: string) {
      this.webContents.url = url;
      return Promise.resolve();
    }
    show() {
      this.visible = true;
    }
    hide() {
      this.visible = false;
    }
    focus() {
      record('window.focus');
    }
    minimize() {
      this.minimized = true;
    }
    restore() {
      this.minimized = false;
    }
    maximize() {}
    isMinimized() {
      return this.minimized;
    }
    isMaximized() {
      return false;
    }
    isVisible() {
      return this.visible;
    }
    isDestroyed() {
      return this.destroyed;
    }
    getNormalBounds() {
      return { x: 10, y: 20, width: 900, height: 600 };
    }
    /** What the user's click on the close button does. */
    clickClose() {
      const event = fakeEvent();
      this.emit('close', event);
      if (!event.defaultPrevented) this.destroyed = true;
      return event;
    }
  }

  class FakeTray extends EventEmitter {
    menu: { template: unknown[] } | null = null;
    constructor() {
      super();
      record('Tray');
      trays.push(this);
    }
    setImage() {}
    setToolTip(t: string) {
      record('tray.setToolTip', t);
    }
    setContextMenu(menu: { template: unknown[] }) {
      this.menu = menu;
    }
    destroy() {
      record('tray.destroy');
    }
  }

  class FakeNotification extends EventEmitter {
    static isSupported = () => true;
    constructor(readonly options: unknown) {
      super();
      notifications.push(this);
    }
    show() {
      record('notification.show', this.options);
    }
  }

  const permission: { request?: Handler; check?: Handler } = {};
  const electron = {
    app,
    BrowserWindow: FakeWindow,
    Tray: FakeTray,
    Notification: FakeNotification,
    Menu: {
      buildFromTemplate: (template: unknown[]) => ({ template }),
      setApplicationMenu: (menu: unknown) => record('Menu.setApplicationMenu', menu),
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (h: Handler) => {
          permission.request = h;
        },
        setPermissionCheckHandler: (h: Handler) => {
          permission.check = h;
        },
      },
    },
    screen: {
      getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }],
    },
    shell: {
      openExternal: async (url: string) => record('shell.openExternal', url),
      openPath: async (path: string) => {
        record('shell.openPath', path);
        return '';
      },
    },
    nativeImage: {
      createEmpty: () => ({}),
      createFromPath: (path: string) => ({ path, setTemplateImage() {} }),
    },
    clipboard: { writeText: (text: string) => record('clipboard.writeText', text) },
    ipcMain: {
      handle: (channel: string, h: Handler) => handlers.set(channel, h),
      removeHandler: (channel: string) => handlers.delete(channel),
    },
    powerMonitor: new EventEmitter(),
    net: { isOnline: () => true },
    safeStorage: {
      isEncryptionAvailable: () => opts.encryption ?? true,
      getSelectedStorageBackend: () => opts.backend ?? 'gnome_libsecret',
      encryptString: (plain: string) => Buffer.from(`sealed:${plain}`),
      decryptString: (sealed: Buffer) => sealed.toString().slice('sealed:'.length),
    },
  };
  return {
    electron,
    calls,
    windows,
    trays,
    notifications,
    handlers,
    permission,
    exit,
    updater: createFakeUpdater(calls),
  };
}

/** electron-updater's autoUpdater: records what the shell asks, tests emit its events. */
function createFakeUpdater(calls: Call[]) {
  return Object.assign(new EventEmitter(), {
    autoDownload: false,
    autoInstallOnAppQuit: false,
    logger: null as unknown,
    setFeedURL: (o: unknown) => calls.push(['updater.setFeedURL', o]),
    checkForUpdates: () => {
      calls.push(['updater.checkForUpdates']);
      return Promise.resolve(null);
    },
    quitAndInstall: () => calls.push(['updater.quitAndInstall']),
  });
}

export type Fake = ReturnType<typeof createFake>;

// On globalThis: vi.resetModules gives the mocked module its own copy of this file, and both
// copies must see the same fake.
const holder = globalThis as { __breakwaterFakeElectron?: Fake };

export function resetFakeElectron(opts: FakeOptions): Fake {
  holder.__breakwaterFakeElectron = createFake(opts);
  return holder.__breakwaterFakeElectron;
}

function now(): Fake['electron'] {
  const current = holder.__breakwaterFakeElectron;
  if (!current) throw new Error('resetFakeElectron first');
  return current.electron;
}

/** What `import … from 'electron'` gets in the tests. */
export const electronModule = Object.fromEntries(
  [
    'app',
    'BrowserWindow',
    'Tray',
    'Notification',
    'Menu',
    'session',
    'screen',
    'shell',
    'nativeImage',
    'clipboard',
    'ipcMain',
    'powerMonitor',
    'net',
    'safeStorage',
  ].map((name) => [name, undefined]),
);
for (const name of Object.keys(electronModule)) {
  Object.defineProperty(electronModule, name, {
    get: () => now()[name as keyof Fake['electron']],
    enumerable: true,
  });
}

/** What `import … from 'electron-updater'` gets in the tests. */
export const updaterModule = {
  get autoUpdater() {
    const current = holder.__breakwaterFakeElectron;
    if (!current) throw new Error('resetFakeElectron first');
    return current.updater;
  },
};
