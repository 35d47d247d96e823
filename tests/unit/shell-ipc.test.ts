import { describe, expect, it, vi } from 'vitest';
import type { Engine } from '../../src/main/engine/index';
import { createEventBatcher } from '../../src/main/shell/decisions';
import {
  type ActionContext,
  dispatchAction,
  isTrustedSender,
  PAYLOAD_CHECKS,
  REFUSED_SENDER,
  type SenderInfo,
} from '../../src/main/shell/ipc-handlers';
import type { AdminActions } from '../../src/shared/admin-client';
import { ACTION_METHODS } from '../../src/shared/ipc';

const APP_URL = 'file:///opt/breakwater/out/renderer/index.html';
const TARGET = { webContentsId: 7, appUrl: APP_URL };
const GOOD: SenderInfo = {
  webContentsId: 7,
  frameUrl: `${APP_URL}#/resilience`,
  isMainFrame: true,
};

function context(over: Partial<ActionContext> = {}) {
  const calls: unknown[][] = [];
  const actions = new Proxy({} as AdminActions, {
    get:
      (_t, name) =>
      async (...args: unknown[]) => {
        calls.push([name, ...args]);
        return { ok: true, data: null };
      },
  });
  const ctx: ActionContext = {
    target: () => TARGET,
    engine: () => ({ actions }) as unknown as Engine,
    startupError: async () => null,
    ...over,
  };
  return { ctx, calls };
}

describe('IPC sender check', () => {
  it('accepts the app page in the app window (any fragment)', () => {
    expect(isTrustedSender(GOOD, TARGET)).toBe(true);
  });
  it('refuses another window, a subframe, a foreign page, or no window at all', () => {
    expect(isTrustedSender({ ...GOOD, webContentsId: 8 }, TARGET)).toBe(false);
    expect(isTrustedSender({ ...GOOD, isMainFrame: false }, TARGET)).toBe(false);
    expect(isTrustedSender({ ...GOOD, frameUrl: 'https://evil.example/' }, TARGET)).toBe(false);
    expect(isTrustedSender({ ...GOOD, frameUrl: 'file:///tmp/other.html' }, TARGET)).toBe(false);
    expect(isTrustedSender({ ...GOOD, frameUrl: null }, TARGET)).toBe(false);
    expect(isTrustedSender(GOOD, null)).toBe(false);
  });
});

describe('IPC action handlers', () => {
  it('run a valid action from the app window through the admin actions', async () => {
    const { ctx, calls } = context();
    const r = await dispatchAction(ctx, 'resetBreaker', GOOD, ['openai']);
    expect(r).toEqual({ ok: true, data: null });
    expect(calls).toEqual([['resetBreaker', 'openai']]);
  });
  it('refuse a foreign sender before looking at the payload or doing anything', async () => {
    const { ctx, calls } = context();
    const r = await dispatchAction(
      ctx,
      'pause',
      { ...GOOD, frameUrl: 'https://evil.example/' },
      [],
    );
    expect(r).toEqual({ ok: false, error: REFUSED_SENDER });
    expect(calls).toEqual([]);
  });
  it.each([
    ['deleteProvider', []],
    ['deleteProvider', [42]],
    ['deleteProvider', ['']],
    ['saveConnection', ['openai', 'not an object']],
    ['updateSettings', [['a', 1]]],
    ['getLogs', [0]],
    ['getLogs', [10, { sql: 'DROP TABLE' }]],
    ['getLogs', [10, { status: '500' }]],
    ['getLogDetail', []],
    ['getLogDetail', ['7']],
    ['getLogDetail', [1.5]],
    ['replayLog', [7, '']],
    ['replayLog', [7, { target: 'x' }]],
    ['replayLog', [null]],
    ['reenableModel', [{ provider: 'p', connection: 'c' }]],
    ['pause', ['now']],
    ['resetBreaker', [{ provider: 'x' }]],
    ['releaseLease', ['x'.repeat(500)]],
    ['testConnection', []],
    ['testConnection', ['']],
    ['testConnection', [42]],
    ['testConnection', [{ id: 'oa-1' }]],
    ['testConnection', ['oa-1', 'extra']],
    ['clearLearnedFixes', ['oa']],
    ['clearLearnedFixes', [{ provider: '' }]],
    ['clearLearnedFixes', [{ provider: 'oa', param: 'top_p' }]],
    ['clearLearnedFixes', [{}, {}]],
  ] as const)('refuse a bad payload: %s %j', async (method, args) => {
    const { ctx, calls } = context();
    const r = await dispatchAction(ctx, method, GOOD, [...args]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(new RegExp(`^invalid ${method} payload: `));
    expect(calls).toEqual([]);
  });
  it('pass a valid testConnection id through to the admin actions', async () => {
    const { ctx, calls } = context();
    expect(await dispatchAction(ctx, 'testConnection', GOOD, ['oa-1'])).toEqual({
      ok: true,
      data: null,
    });
    expect(calls).toEqual([['testConnection', 'oa-1']]);
  });
  it('pass learnt-fix filters through: all, one provider, one model', async () => {
    const { ctx, calls } = context();
    for (const args of [[], [{ provider: 'oa' }], [{ provider: 'oa', model: 'gpt-5' }]]) {
      expect((await dispatchAction(ctx, 'clearLearnedFixes', GOOD, args)).ok).toBe(true);
    }
    expect(calls).toEqual([
      ['clearLearnedFixes'],
      ['clearLearnedFixes', { provider: 'oa' }],
      ['clearLearnedFixes', { provider: 'oa', model: 'gpt-5' }],
    ]);
  });
  it('have a payload check for every action channel', () => {
    for (const m of ACTION_METHODS) expect(typeof PAYLOAD_CHECKS[m]).toBe('function');
  });
  it('answer with the startup error when the gateway is not serving', async () => {
    const { ctx, calls } = context({
      startupError: async () => ({
        code: 'EADDRINUSE',
        message: '127.0.0.1:4141 is already in use',
      }),
    });
    const r = await dispatchAction(ctx, 'listProviders', GOOD, []);
    expect(r).toEqual({
      ok: false,
      error: 'the gateway is not serving: 127.0.0.1:4141 is already in use',
    });
    expect(calls).toEqual([]);
  });
  it('turn a thrown error into {ok: false}', async () => {
    const { ctx } = context({
      engine: () =>
        ({
          actions: {
            getSettings: async () => {
              throw new Error('boom');
            },
          },
        }) as unknown as Engine,
    });
    expect(await dispatchAction(ctx, 'getSettings', GOOD, [])).toEqual({
      ok: false,
      error: 'boom',
    });
  });
});

describe('event batching to the renderer', () => {
  function manual() {
    let pending: (() => void) | null = null;
    return {
      schedule: (fn: () => void) => {
        pending = fn;
        return () => {
          pending = null;
        };
      },
      fire: () => pending?.(),
      get armed() {
        return pending !== null;
      },
    };
  }
  /** A batcher every 100 ms on a manual clock, with its send spy. */
  function batcher(maxBatch: number) {
    const clock = manual();
    const send = vi.fn();
    const b = createEventBatcher<number>({
      intervalMs: 100,
      maxBatch,
      send,
      schedule: clock.schedule,
    });
    return { clock, send, b };
  }
  it('sends everything that arrives within one interval as one batch', () => {
    const { clock, send, b } = batcher(1000);
    for (let i = 0; i < 500; i++) b.push(i);
    expect(send).not.toHaveBeenCalled();
    clock.fire();
    expect(send).toHaveBeenCalledTimes(1);
    expect(send.mock.calls[0]?.[0]).toHaveLength(500);
  });
  it('caps a storm at maxBatch, keeping the newest', () => {
    const { clock, send, b } = batcher(10);
    for (let i = 0; i < 25; i++) b.push(i);
    clock.fire();
    expect(send.mock.calls[0]?.[0]).toEqual([15, 16, 17, 18, 19, 20, 21, 22, 23, 24]);
  });
  it('sends nothing when idle and stops on dispose', () => {
    const { clock, send, b } = batcher(10);
    expect(clock.armed).toBe(false);
    b.push(1);
    b.dispose();
    clock.fire();
    expect(send).not.toHaveBeenCalled();
  });
});
