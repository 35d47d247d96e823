import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/main/engine/engine';
import { silentLogger } from '../../src/main/engine/logger';
import { openStore, type SecretCodec } from '../../src/main/engine/store';

/** A real cipher standing in for the OS keychain (safeStorage is Electron-only). */
function aesCodec(key = randomBytes(32)): SecretCodec {
  return {
    name: 'test-aes',
    encrypt(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return Buffer.concat([iv, c.getAuthTag(), body]);
    },
    decrypt(sealed) {
      const d = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
      d.setAuthTag(sealed.subarray(12, 28));
      return Buffer.concat([d.update(sealed.subarray(28)), d.final()]).toString('utf8');
    },
  };
}

const SECRET = 'sk-live-secret-0123456789abcdef';
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bw-secrets-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function seed(file: string, codec?: SecretCodec): void {
  const store = openStore(file, codec ? { connections: { secretCodec: codec } } : {});
  store.providers.upsert({
    id: 'p',
    format: 'openai',
    baseUrl: 'https://example.invalid/v1',
    authClass: 'api_key',
    models: [],
    timeouts: {},
    enabled: true,
    position: 0,
  });
  store.connections.upsert({
    id: 'c',
    provider: 'p',
    apiKey: SECRET,
    apiKeyEnv: null,
    maxConcurrent: null,
    enabled: true,
    position: 0,
  });
  store.close();
}

function rawKey(file: string): string | null {
  const store = openStore(file);
  const row = store.db.prepare('SELECT api_key FROM connections WHERE id = ?').get('c') as {
    api_key: string | null;
  };
  store.close();
  return row.api_key;
}

describe('provider keys at rest', () => {
  it('are sealed by the codec and read back in plain', () => {
    const file = join(dir, 'db.sqlite');
    const codec = aesCodec();
    seed(file, codec);
    const stored = rawKey(file)!;
    expect(stored.startsWith('enc:v1:')).toBe(true);
    expect(stored).not.toContain(SECRET);
    const store = openStore(file, { connections: { secretCodec: codec } });
    expect(store.connections.get('c')!.apiKey).toBe(SECRET);
    store.close();
  });

  it('still read when they were stored before a codec existed, and are sealed on the next save', () => {
    const file = join(dir, 'db.sqlite');
    seed(file);
    expect(rawKey(file)).toBe(SECRET);
    const codec = aesCodec();
    const store = openStore(file, { connections: { secretCodec: codec } });
    const rec = store.connections.get('c')!;
    expect(rec.apiKey).toBe(SECRET);
    store.connections.upsert(rec);
    store.close();
    expect(rawKey(file)!.startsWith('enc:v1:')).toBe(true);
  });

  it('read as missing, with a report and without the key, when they cannot be opened here', () => {
    const file = join(dir, 'db.sqlite');
    seed(file, aesCodec());
    const errors: string[] = [];
    const other = openStore(file, {
      connections: {
        secretCodec: aesCodec(),
        onSecretError: (c, e) => errors.push(`${c}: ${String(e)}`),
      },
    });
    expect(other.connections.get('c')!.apiKey).toBeNull();
    other.close();
    const none = openStore(file, {
      connections: { onSecretError: (c) => errors.push(`${c}: no codec`) },
    });
    expect(none.connections.get('c')!.apiKey).toBeNull();
    none.close();
    expect(errors).toHaveLength(2);
    expect(errors.join('\n')).not.toContain(SECRET);
  });

  it('never reach the database file in plain when the engine is given a codec', async () => {
    const engine = createEngine({
      dataDir: dir,
      port: 0,
      log: silentLogger,
      env: {},
      secretCodec: aesCodec(),
      config: {
        providers: [
          {
            id: 'p',
            format: 'openai',
            baseUrl: 'https://example.invalid/v1',
            authClass: 'api_key',
            models: ['m'],
            connections: [{ id: 'c', apiKey: SECRET }],
          },
        ],
      },
    });
    await engine.stop({ graceMs: 0 });
    const bytes = ['breakwater.db', 'breakwater.db-wal']
      .map((f) => {
        try {
          return readFileSync(join(dir, f)).toString('latin1');
        } catch {
          return '';
        }
      })
      .join('');
    expect(bytes).not.toContain(SECRET);
  });
});
