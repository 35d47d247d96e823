// A clean quit: the engine stops first (bounded by a deadline), then the log closes, then the
// process exits. SIGINT and SIGTERM quit the same way.
import { app } from 'electron';
import type { DesktopSession } from './desktop-session';

/** Quitting never waits longer than this for the engine to drain. */
const STOP_DEADLINE_MS = 30_000;

function delay(ms: number): Promise<'timeout'> {
  return new Promise((done) => setTimeout(() => done('timeout'), ms));
}

async function shutdown(s: DesktopSession): Promise<void> {
  const work = (async () => {
    await s.gateway.startupError();
    s.stopWatching?.();
    s.stopForwarding?.();
    s.stopForwarding = null;
    s.stopTrayEvents?.();
    s.stopFollowing?.();
    s.updates?.dispose();
    s.tray?.dispose();
    s.tray = null;
    await s.gateway.engine()?.stop();
  })();
  const outcome = await Promise.race([
    work.then(() => 'stopped' as const),
    delay(STOP_DEADLINE_MS),
  ]);
  if (outcome === 'timeout') {
    s.log.error(`the engine did not stop within ${STOP_DEADLINE_MS} ms; exiting anyway`);
  }
}

export function stopEngineOnQuit(s: DesktopSession): void {
  let shutdownStarted = false;
  let shutdownDone = false;
  // Hold the quit once, drain, then exit for real.
  app.on('before-quit', (event) => {
    s.quitting = true;
    if (shutdownDone) return;
    event.preventDefault();
    if (shutdownStarted) return;
    shutdownStarted = true;
    shutdown(s)
      .catch((err: unknown) => s.log.error(`stopping the engine failed: ${String(err)}`))
      .finally(() => {
        shutdownDone = true;
        void s.log.close().finally(() => app.exit(0));
      });
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => app.quit());
  }
}
