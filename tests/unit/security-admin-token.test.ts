import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadAdminToken } from '../../src/main/engine/admin/token';
import { createEngine } from '../../src/main/engine/engine';
import { captureLogger } from '../support/gateway';

const dir = mkdtempSync(join(tmpdir(), 'bw-token-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('defect 7: a weak BREAKWATER_ADMIN_TOKEN is refused at start', () => {
  it('a token under 16 characters is refused with a message saying why and what to do', () => {
    for (const weak of ['a', 'short-token', '123456789012345', `  ${'x'.repeat(15)}  `]) {
      expect(() => loadAdminToken(dir, { BREAKWATER_ADMIN_TOKEN: weak })).toThrow(
        /BREAKWATER_ADMIN_TOKEN is \d+ characters long; it must have at least 16/,
      );
    }
  });

  it('the engine does not start with one, and the message does not echo the token', () => {
    const log = captureLogger();
    let message = '';
    try {
      createEngine({
        dataDir: join(dir, 'engine'),
        port: 0,
        log,
        env: { BREAKWATER_ADMIN_TOKEN: 'hunter2' },
      });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/at least 16/);
    expect(message).not.toContain('hunter2');
  });

  it('16 characters or more, or none (a generated one), are accepted', () => {
    expect(loadAdminToken(dir, { BREAKWATER_ADMIN_TOKEN: 'x'.repeat(16) })).toBe('x'.repeat(16));
    expect(loadAdminToken(dir, {})).toMatch(/^bwa_.{40,}$/);
  });
});
