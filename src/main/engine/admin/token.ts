import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const MIN_ADMIN_TOKEN_LENGTH = 16;

/**
 * The admin token: `BREAKWATER_ADMIN_TOKEN` when set, else generated once into
 * `<dataDir>/admin-token` with mode 0600 and reused on every start.
 */
export function loadAdminToken(dataDir: string, env: NodeJS.ProcessEnv): string {
  const fromEnv = env.BREAKWATER_ADMIN_TOKEN?.trim();
  if (fromEnv) {
    // The token grants full control of the gateway to any local process that guesses it.
    if (fromEnv.length < MIN_ADMIN_TOKEN_LENGTH) {
      throw new Error(
        `BREAKWATER_ADMIN_TOKEN is ${fromEnv.length} characters long; it must have at least ${MIN_ADMIN_TOKEN_LENGTH} (unset it to have one generated into ${adminTokenPath(dataDir)})`,
      );
    }
    return fromEnv;
  }
  const file = join(dataDir, 'admin-token');
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) {
      // Tighten a token file someone loosened by hand; it grants full control of the gateway.
      if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0)
        chmodSync(file, 0o600);
      return existing;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const token = `bwa_${randomBytes(32).toString('base64url')}`;
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}

export function adminTokenPath(dataDir: string): string {
  return join(dataDir, 'admin-token');
}
