// Engine options only the desktop knows, read when the app is ready: the OS keychain that seals
// provider keys, and where the Electron build of the SQLite module is.
import { app, safeStorage } from 'electron';
import type { EngineOptions, SecretCodec } from '../engine/index';
import type { LogFile } from './log-file';
import { secretSealing } from './policy';

/** Provider keys at rest, sealed by the OS keychain (Keychain, DPAPI, libsecret). */
const safeStorageCodec: SecretCodec = {
  name: 'safeStorage',
  encrypt: (plain) => safeStorage.encryptString(plain),
  decrypt: (sealed) => safeStorage.decryptString(sealed),
};

/** The keychain codec when sealing protects something; says so in the log either way. */
function keychainCodec(platform: NodeJS.Platform, log: LogFile): SecretCodec | undefined {
  const sealing = secretSealing({
    available: safeStorage.isEncryptionAvailable(),
    backend: platform === 'linux' ? safeStorage.getSelectedStorageBackend() : null,
  });
  if (sealing.warning) {
    log.warn(sealing.warning);
    return undefined;
  }
  log.info(
    'provider keys entered in the desktop app are sealed with the OS keychain: `breakwater serve` on the same data folder cannot read them (give keys both should use as apiKeyEnv)',
  );
  return safeStorageCodec;
}

export function desktopEngineOptions(
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
  log: LogFile,
): Partial<EngineOptions> {
  const codec = keychainCodec(platform, log);
  // The packaged app carries the Electron build in its own node_modules; from source,
  // `npm start` says where its separate copy is.
  const binding = app.isPackaged ? undefined : env.BREAKWATER_SQLITE_BINDING;
  return {
    ...(codec ? { secretCodec: codec } : {}),
    ...(binding ? { sqliteBinding: binding } : {}),
  };
}
