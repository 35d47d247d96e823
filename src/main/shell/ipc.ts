import { type IpcMainInvokeEvent, ipcMain, type WebContents } from 'electron';
import type { EngineEvent } from '../../shared/contract';
import {
  ACTION_METHODS,
  actionChannel,
  DESKTOP_ACTIONS,
  type DesktopAction,
  EVENT_BATCH_MS,
  IpcChannel,
  type IpcInvokeMap,
  type IpcPushMap,
  type StartupError,
} from '../../shared/ipc';
import type { Engine } from '../engine/index';
import { createEventBatcher } from './decisions';
import {
  dispatchAction,
  isTrustedSender,
  REFUSED_SENDER,
  type SenderInfo,
  type TrustedTarget,
} from './ipc-handlers';

/** Largest batch pushed at once; older events beyond it are dropped (the renderer refetches). */
const MAX_EVENTS_PER_BATCH = 1000;

export interface IpcTarget {
  webContents: WebContents;
  appUrl: string;
}

export interface IpcContext {
  /** The app window's contents and URL, when the window exists. */
  target(): IpcTarget | null;
  /** The engine, when it could be created. */
  engine(): Engine | null;
  /** Resolves once startup has settled: null when the gateway listens, else why it does not. */
  startupError(): Promise<StartupError | null>;
  /** Runs a shell action of the window (port-taken screen); answers the startup error after it. */
  desktopAction(action: DesktopAction): Promise<StartupError | null>;
}

type InvokeChannel = keyof IpcInvokeMap;

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function senderInfo(event: IpcMainInvokeEvent): SenderInfo {
  const frame = event.senderFrame;
  return {
    webContentsId: event.sender.id,
    frameUrl: frame ? frame.url : null,
    isMainFrame: frame ? frame.parent === null : false,
  };
}

function trustedTarget(target: IpcTarget | null): TrustedTarget | null {
  if (!target || target.webContents.isDestroyed()) return null;
  return { webContentsId: target.webContents.id, appUrl: target.appUrl };
}

/** Registers the invoke handlers; returns a function removing them. */
export function registerIpcHandlers(ctx: IpcContext): () => void {
  const target = () => trustedTarget(ctx.target());
  const handle = <C extends InvokeChannel>(
    channel: C,
    run: () => Promise<IpcInvokeMap[C]> | IpcInvokeMap[C],
  ): void => {
    ipcMain.handle(channel, async (event): Promise<IpcInvokeMap[C]> => {
      if (!isTrustedSender(senderInfo(event), target())) {
        return { ok: false, error: REFUSED_SENDER } as IpcInvokeMap[C];
      }
      try {
        return await run();
      } catch (err) {
        return { ok: false, error: errorText(err) } as IpcInvokeMap[C];
      }
    });
  };

  handle(IpcChannel.getSnapshot, async () => {
    const engine = ctx.engine();
    if (!engine) {
      const startup = await ctx.startupError();
      return { ok: false, error: startup?.message ?? 'the gateway engine is not running' };
    }
    return { ok: true, data: engine.snapshot() };
  });

  handle(IpcChannel.getStartupError, async () => ({ ok: true, data: await ctx.startupError() }));

  // Every admin action: sender check, payload check, then the engine's in-process actions.
  const actionContext = {
    target,
    engine: ctx.engine,
    startupError: ctx.startupError,
  };
  for (const method of ACTION_METHODS) {
    ipcMain.handle(actionChannel(method), (event, ...args: unknown[]) =>
      dispatchAction(actionContext, method, senderInfo(event), args),
    );
  }

  ipcMain.handle(
    IpcChannel.desktopAction,
    async (event, action: unknown): Promise<IpcInvokeMap[typeof IpcChannel.desktopAction]> => {
      if (!isTrustedSender(senderInfo(event), target()))
        return { ok: false, error: REFUSED_SENDER };
      if (!(DESKTOP_ACTIONS as readonly unknown[]).includes(action)) {
        return { ok: false, error: `invalid desktop action: ${String(action).slice(0, 40)}` };
      }
      try {
        return { ok: true, data: await ctx.desktopAction(action as DesktopAction) };
      } catch (err) {
        return { ok: false, error: errorText(err) };
      }
    },
  );

  return () => {
    for (const channel of [
      IpcChannel.getSnapshot,
      IpcChannel.getStartupError,
      IpcChannel.desktopAction,
    ]) {
      ipcMain.removeHandler(channel);
    }
    for (const method of ACTION_METHODS) ipcMain.removeHandler(actionChannel(method));
  };
}

export function push<C extends keyof IpcPushMap>(
  target: IpcTarget | null,
  channel: C,
  payload: IpcPushMap[C],
): void {
  if (!target || target.webContents.isDestroyed()) return;
  target.webContents.send(channel, payload);
}

/**
 * Forwards engine events to the window, batched: at most one message per EVENT_BATCH_MS, so an
 * event storm cannot flood the renderer. Returns a function that unsubscribes and flushes.
 */
export function forwardEngineEvents(engine: Engine, target: () => IpcTarget | null): () => void {
  const batcher = createEventBatcher<EngineEvent>({
    intervalMs: EVENT_BATCH_MS,
    maxBatch: MAX_EVENTS_PER_BATCH,
    send: (batch) => push(target(), IpcChannel.events, batch),
  });
  const unsubscribe = engine.onEvent((event) => batcher.push(event));
  return () => {
    unsubscribe();
    batcher.flush();
    batcher.dispose();
  };
}
