// Sandboxed preload: exposes a narrow, typed bridge as `window.breakwater`. Nothing else from
// Electron or Node reaches the page; event objects are never passed through.
import { contextBridge, type IpcRendererEvent, ipcRenderer } from 'electron';
import type { EngineEvent } from '../shared/contract';
import { type DesktopBridge, IpcChannel, type IpcInvokeMap } from '../shared/ipc';

function invoke<C extends keyof IpcInvokeMap>(channel: C): Promise<IpcInvokeMap[C]> {
  return ipcRenderer.invoke(channel) as Promise<IpcInvokeMap[C]>;
}

const api: DesktopBridge = {
  getSnapshot: () => invoke(IpcChannel.getSnapshot),
  getStartupError: () => invoke(IpcChannel.getStartupError),
  onEvents(listener) {
    const handler = (_event: IpcRendererEvent, events: EngineEvent[]): void => listener(events);
    ipcRenderer.on(IpcChannel.events, handler);
    return () => {
      ipcRenderer.removeListener(IpcChannel.events, handler);
    };
  },
};

contextBridge.exposeInMainWorld('breakwater', api);
