import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

const KEY = 'tvly-secret-search-key-0123456789';
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bw-websearch-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the web search key is stored like a connection key', () => {
  it('sealed at rest with a codec, opened again on the next start', () => {
    const file = join(dir, 'db.sqlite');
    const codec = aesCodec();
    const a = openStore(file, { connections: { secretCodec: codec } });
    a.webSearch.set({ backend: 'tavily', apiKey: KEY, maxResults: 3 });
    const raw = JSON.stringify(a.settings.get('webSearch'));
    expect(raw).not.toContain(KEY);
    expect(raw).toContain('enc:v1:');
    a.close();
    const b = openStore(file, { connections: { secretCodec: codec } });
    expect(b.webSearch.get()).toEqual({ backend: 'tavily', apiKey: KEY, maxResults: 3 });
    b.close();
  });

  it('a sealed key that cannot be opened here reads as no key, and says so', () => {
    const file = join(dir, 'db.sqlite');
    const a = openStore(file, { connections: { secretCodec: aesCodec() } });
    a.webSearch.set({ backend: 'brave', apiKey: KEY });
    a.close();
    const errors: string[] = [];
    const b = openStore(file, {
      connections: { secretCodec: aesCodec(), onSecretError: (id) => errors.push(id) },
    });
    expect(b.webSearch.get()).toEqual({ backend: 'brave' });
    expect(errors).toEqual(['webSearch']);
    b.close();
  });

  it('garbage in the row reads as not configured', () => {
    const file = join(dir, 'db.sqlite');
    const a = openStore(file);
    for (const bad of [
      null,
      5,
      'x',
      [],
      { backend: 7 },
      { backend: 'bing' },
      { backend: 'searxng' },
    ]) {
      a.settings.set('webSearch', bad);
      const fresh = openStore(file);
      expect(fresh.webSearch.get()).toBeNull();
      fresh.close();
    }
    a.close();
  });
});
