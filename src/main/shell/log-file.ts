// The desktop app's log: a file in the OS logs folder (the tray's "Open logs"), because a desktop
// user never sees stderr. Lines are redacted like the headless logger's and also go to stderr
// (useful under `npm start`). Writes are queued on a stream: nothing waits for the disk.
import { createWriteStream, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Logger, type LogLevel, redactSecrets } from '../engine/index';

/** Past this size at start, the file moves to `.1` (one old file is kept). */
const ROTATE_BYTES = 5 * 1024 * 1024;

export interface LogFile extends Logger {
  readonly path: string;
  close(): Promise<void>;
}

export function openLogFile(dir: string, name = 'breakwater.log'): LogFile {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  if (existsSync(path) && statSync(path).size > ROTATE_BYTES) renameSync(path, `${path}.1`);
  const stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
  // A full disk must not take the app down with it: the line still reached stderr.
  stream.on('error', () => {});
  const write = (level: LogLevel, message: string): void => {
    const line = `${new Date().toISOString()} ${level.padEnd(5)} ${redactSecrets(message)}\n`;
    process.stderr.write(line);
    if (stream.writable) stream.write(line);
  };
  return {
    path,
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
    close: () => new Promise((done) => stream.end(done)),
  };
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/**
 * Errors nobody caught in the main process go to the log instead of Electron's modal dialog
 * (which blocks the tray app until someone clicks it, and is lost when nobody does).
 */
export function logUncaughtErrors(log: Logger): void {
  process.on('uncaughtException', (err) => log.error(`uncaught exception: ${describe(err)}`));
  process.on('unhandledRejection', (err) => log.error(`unhandled rejection: ${describe(err)}`));
}
