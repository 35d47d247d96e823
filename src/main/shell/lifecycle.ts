// The machine around the app: sleep and wake, the network coming and going, the OS ending the
// session. The engine is told, so a laptop waking up offline does not open every breaker, and the
// buffered request-log rows are written before a logoff that skips `before-quit` (Windows).
import { type BrowserWindow, net, powerMonitor } from 'electron';
import type { Engine, HostNetworkEvent, Logger } from '../engine/index';

/** How often the network state is read (Electron's main process has no online event). */
const ONLINE_POLL_MS = 5000;

export function watchHost(
  engine: () => Engine | null,
  log: Logger,
  window: BrowserWindow,
): () => void {
  const note = (event: HostNetworkEvent) => engine()?.noteHostNetwork(event);
  const flush = (why: string) => {
    const e = engine();
    if (!e) return;
    log.info(`${why}: writing the request log now`);
    e.flushLog();
  };
  const onSuspend = () => {
    note('suspend');
    flush('going to sleep');
  };
  const onResume = () => note('resume');
  const onShutdown = () => flush('the system is shutting down');
  const onSessionEnd = () => flush('the session is ending');
  powerMonitor.on('suspend', onSuspend);
  powerMonitor.on('resume', onResume);
  // Linux and macOS announce shutdown here; Windows logoff and shutdown come to the window as
  // session-end, and then the process ends without before-quit.
  powerMonitor.on('shutdown', onShutdown);
  window.on('session-end', onSessionEnd);

  let online = net.isOnline();
  const poll = setInterval(() => {
    const now = net.isOnline();
    if (now === online) return;
    online = now;
    note(now ? 'online' : 'offline');
  }, ONLINE_POLL_MS);
  poll.unref();

  return () => {
    clearInterval(poll);
    powerMonitor.off('suspend', onSuspend);
    powerMonitor.off('resume', onResume);
    powerMonitor.off('shutdown', onShutdown);
    if (!window.isDestroyed()) window.off('session-end', onSessionEnd);
  };
}
