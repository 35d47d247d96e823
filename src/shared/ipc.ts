// The IPC channel map between the Electron main process and the preload bridge.
// Plain constants and types only: the preload, the renderer and the main process all import it.

import type { BridgeApi, BridgeResult, EngineEvent, Snapshot } from './contract';

/** Every channel name, spelled once. */
export const IpcChannel = {
  /** invoke: the current Snapshot. */
  getSnapshot: 'breakwater:get-snapshot',
  /** invoke: why the gateway failed to start (null when it started); resolves once startup settled. */
  getStartupError: 'breakwater:get-startup-error',
  /** push: engine events, batched (one message per EVENT_BATCH_MS at most). */
  events: 'breakwater:events',
} as const;

export type IpcChannelName = (typeof IpcChannel)[keyof typeof IpcChannel];

/** How often the main process flushes buffered engine events to the renderer. */
export const EVENT_BATCH_MS = 100;

/** Why the gateway is not serving, as the window shows it. */
export interface StartupError {
  /** Short machine-readable code: `EADDRINUSE`, `config`, `engine`, `args`, … */
  code: string;
  message: string;
}

/** Renderer → main (`ipcRenderer.invoke` / `ipcMain.handle`): the result of each channel. */
export interface IpcInvokeMap {
  [IpcChannel.getSnapshot]: BridgeResult<Snapshot>;
  [IpcChannel.getStartupError]: BridgeResult<StartupError | null>;
}

/** Main → renderer (`webContents.send` / `ipcRenderer.on`): the payload of each channel. */
export interface IpcPushMap {
  [IpcChannel.events]: EngineEvent[];
}

/** What the preload exposes as `window.breakwater` (a subset of BridgeApi for now). */
export type DesktopBridge = Pick<BridgeApi, 'getSnapshot' | 'onEvents'> & {
  getStartupError(): Promise<BridgeResult<StartupError | null>>;
};
