// The IPC channel map between the Electron main process and the preload bridge.
// Plain constants and types only: the preload, the renderer and the main process all import it.

import type { AdminActions } from './admin-client';
import type { BridgeApi, BridgeResult, EngineEvent, Snapshot } from './contract';

/** Every channel name, spelled once. */
export const IpcChannel = {
  /** invoke: the current Snapshot. */
  getSnapshot: 'breakwater:get-snapshot',
  /** invoke: why the gateway failed to start (null when it started); resolves once startup settled. */
  getStartupError: 'breakwater:get-startup-error',
  /** push: engine events, batched (one message per EVENT_BATCH_MS at most). */
  events: 'breakwater:events',
  /** push: show a page of the dashboard (e.g. after a notification click). */
  navigate: 'breakwater:navigate',
  /** invoke: one of DESKTOP_ACTIONS; answers the startup error after it (null: serving). */
  desktopAction: 'breakwater:desktop-action',
} as const;

/** What the desktop window can ask of the shell itself (the port-taken screen, the About panel). */
export const DESKTOP_ACTIONS = [
  'retry-other-port',
  'open-data-folder',
  'open-logs',
  'edit-config',
] as const;

export type DesktopAction = (typeof DESKTOP_ACTIONS)[number];

/**
 * The admin actions of BridgeApi that travel over IPC, one channel each (`breakwater:action:<name>`).
 * Arguments and result of each are exactly BridgeApi's.
 */
export const ACTION_METHODS = [
  'getLogs',
  'getLogDetail',
  'replayLog',
  'listProviders',
  'saveProvider',
  'deleteProvider',
  'saveConnection',
  'deleteConnection',
  'testConnection',
  'listCombos',
  'saveCombo',
  'deleteCombo',
  'listRules',
  'saveRules',
  'testRules',
  'claudeCodeRules',
  'getSettings',
  'updateSettings',
  'getWebSearch',
  'saveWebSearch',
  'deleteWebSearch',
  'resetBreaker',
  'clearConnectionState',
  'reenableModel',
  'clearLearnedFixes',
  'releaseLease',
  'pause',
  'resume',
  'setGatewayAddress',
  'getPresets',
  'detectProviders',
  'importConfig',
  'getUsage',
  'getSessionCache',
  'listKeys',
  'createKey',
  'updateKey',
  'revokeKey',
  'rotateKey',
  'connectAgent',
  'undoAgent',
] as const satisfies readonly Exclude<keyof AdminActions, 'getSnapshot'>[];

export type ActionMethod = (typeof ACTION_METHODS)[number];

export function actionChannel(method: ActionMethod): `breakwater:action:${ActionMethod}` {
  return `breakwater:action:${method}`;
}

export type ActionArgs<M extends ActionMethod> = Parameters<BridgeApi[M]>;
export type ActionResult<M extends ActionMethod> = Awaited<ReturnType<BridgeApi[M]>>;

export type IpcChannelName = (typeof IpcChannel)[keyof typeof IpcChannel];

/** How often the main process flushes buffered engine events to the renderer. */
export const EVENT_BATCH_MS = 100;

/** Why the gateway is not serving, as the window shows it. */
export interface StartupError {
  /** Short machine-readable code: `EADDRINUSE`, `config`, `engine`, `args`, … */
  code: string;
  message: string;
  /** EADDRINUSE: the address that was taken, and where to change it. */
  host?: string;
  port?: number;
  configPath?: string;
  dataDir?: string;
}

/** Renderer → main (`ipcRenderer.invoke` / `ipcMain.handle`): the result of each channel. */
export interface IpcInvokeMap {
  [IpcChannel.getSnapshot]: BridgeResult<Snapshot>;
  [IpcChannel.getStartupError]: BridgeResult<StartupError | null>;
  [IpcChannel.desktopAction]: BridgeResult<StartupError | null>;
}

/** Main → renderer (`webContents.send` / `ipcRenderer.on`): the payload of each channel. */
export interface IpcPushMap {
  [IpcChannel.events]: EngineEvent[];
  [IpcChannel.navigate]: string;
}

/** What the preload exposes as `window.breakwater`: all of BridgeApi plus two desktop extras. */
export type DesktopBridge = BridgeApi & {
  getStartupError(): Promise<BridgeResult<StartupError | null>>;
  /** The shell asks the page to show a view (`resilience`, …); returns its unsubscribe. */
  onNavigate(listener: (page: string) => void): () => void;
  desktopAction(action: DesktopAction): Promise<BridgeResult<StartupError | null>>;
};
