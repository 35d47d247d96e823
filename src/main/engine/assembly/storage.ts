import { join } from 'node:path';
import type { BreakwaterConfig } from '../../../shared/contract';
import { restrictToOwner } from '../data-dir';
import type { Logger } from '../logger';
import { Settings } from '../settings/settings';
import type { StateBackend } from '../state/backend';
import { openStore, type SecretCodec, type Store } from '../store';
import { applyConfig } from '../store/apply-config';
import { setSqliteBinding } from '../store/database';

export interface StorageOptions {
  dataDir: string;
  config: BreakwaterConfig;
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** Closed with the store when the config is refused. */
  shared: StateBackend;
  secretCodec?: SecretCodec;
  sqliteBinding?: string;
}

/**
 * Opens the SQLite store and the settings over it, then applies the config file to both. A
 * refused config closes the store and the state backend before the error is thrown on.
 */
export function openStorage(opts: StorageOptions): { store: Store; settings: Settings } {
  const { env, log } = opts;
  // The request log prunes lazily, after settings exist; until then the default applies.
  let retentionDays = (): number => 30;
  const dbFile = join(opts.dataDir, 'breakwater.db');
  if (opts.sqliteBinding) setSqliteBinding(opts.sqliteBinding);
  const store = openStore(dbFile, {
    connections: {
      ...(opts.secretCodec ? { secretCodec: opts.secretCodec } : {}),
      onSecretError: (connection, err) =>
        log.error(
          opts.secretCodec
            ? `connection ${connection}: its stored key cannot be decrypted on this machine (${(err as Error).message}); enter the key again`
            : // Only the desktop app seals keys (OS keychain); this host has no way to open them.
              `connection ${connection}: its key was sealed with the OS keychain by the Breakwater desktop app, which this host cannot open; run the desktop app, or give the key as apiKeyEnv (or enter it again here)`,
        ),
    },
    requestLog: {
      onError: (err) => log.error(`request log: ${String(err)}`),
      retentionDays: () => retentionDays(),
    },
  });
  try {
    // Literal provider keys live in this file; SQLite gives its -wal/-shm files the same mode.
    restrictToOwner(dbFile);
    const settings = new Settings(store.settings, env, log);
    retentionDays = () => settings.number('requestLog.retentionDays');
    try {
      applyConfig(opts.config, store, settings, log);
    } catch (err) {
      throw new Error(`invalid config: ${(err as Error).message}`);
    }
    return { store, settings };
  } catch (err) {
    store.close();
    void opts.shared.close();
    throw err;
  }
}
