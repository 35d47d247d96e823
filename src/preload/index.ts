// Sandboxed preload: exposes a narrow, typed bridge as `window.breakwater`. Nothing else from
// Electron or Node reaches the page; event objects are never passed through.
import { contextBridge, type IpcRendererEvent, ipcRenderer } from 'electron';
import type { EngineEvent } from '../shared/contract';
import {
  ACTION_METHODS,
  type ActionArgs,
  type ActionMethod,
  type ActionResult,
  actionChannel,
  type DesktopBridge,
  IpcChannel,
  type IpcInvokeMap,
} from '../shared/ipc';

function invoke<C extends keyof IpcInvokeMap>(channel: C): Promise<IpcInvokeMap[C]> {
  return ipcRenderer.invoke(channel) as Promise<IpcInvokeMap[C]>;
}

function action<M extends ActionMethod>(method: M) {
  return (...args: ActionArgs<M>): Promise<ActionResult<M>> =>
    ipcRenderer.invoke(actionChannel(method), ...args) as Promise<ActionResult<M>>;
}

const actions = Object.fromEntries(ACTION_METHODS.map((m) => [m, action(m)])) as {
  [M in ActionMethod]: DesktopBridge[M];
};

const api: DesktopBridge = {
  ...actions,
  getSnapshot: () => invoke(IpcChannel.getSnapshot),
  getStartupError: () => invoke(IpcChannel.getStartupError),
  desktopAction: (action) =>
    ipcRenderer.invoke(IpcChannel.desktopAction, action) as Promise<
      IpcInvokeMap[typeof IpcChannel.desktopAction]
    >,
  onEvents(listener) {
    const handler = (_event: IpcRendererEvent, events: EngineEvent[]): void => listener(events);
    ipcRenderer.on(IpcChannel.events, handler);
    return () => {
      ipcRenderer.removeListener(IpcChannel.events, handler);
    };
  },
  onNavigate(listener) {
    const handler = (_event: IpcRendererEvent, page: string): void => listener(page);
    ipcRenderer.on(IpcChannel.navigate, handler);
    return () => {
      ipcRenderer.removeListener(IpcChannel.navigate, handler);
    };
  },
};

contextBridge.exposeInMainWorld('breakwater', api);
