import { describe, expect, it } from 'vitest';

// upstream/pools.ts imports undici's pool and connector modules directly (its index costs a
// quarter of the gateway's start). An undici upgrade that moves them must fail here, not at start.
describe('undici modules imported by path', () => {
  it('are the very Pool and buildConnector its index exports', async () => {
    const index = await import('undici');
    const pool = await import('undici/lib/dispatcher/pool.js');
    const connect = await import('undici/lib/core/connect.js');
    expect(pool.default).toBe(index.Pool);
    expect(connect.default).toBe(index.buildConnector);
  });
});
