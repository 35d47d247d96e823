import { chmodSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The per-user data dir both hosts use, so the desktop app and `breakwater serve` share one
 * database and admin token: `BREAKWATER_DATA_DIR`, else the OS's per-user config place.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BREAKWATER_DATA_DIR) return env.BREAKWATER_DATA_DIR;
  if (process.platform === 'darwin') {
    return join(homedir(), 'Library', 'Application Support', 'Breakwater');
  }
  if (process.platform === 'win32') {
    return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Breakwater');
  }
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'breakwater');
}

/** Creates the data dir readable by its owner only: it holds provider secrets. */
export function prepareDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Restricts a file that holds secrets to its owner (no-op where modes do not exist). */
export function restrictToOwner(file: string): void {
  if (process.platform !== 'win32') chmodSync(file, 0o600);
}
