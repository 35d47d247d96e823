import { describe, expect, it } from 'vitest';
import {
  decideNotifications,
  initialNotifyState,
  OPEN_NOTIFY_INTERVAL_MS,
} from '../../src/main/shell/notifications';
import { trayIconFile, trayLevel, trayMenu, trayTooltip } from '../../src/main/shell/tray-state';
import type { BreakerStateName, EngineEvent, Snapshot } from '../../src/shared/contract';
import { healthySnapshot } from '../support/snapshot';

const AT = 1_000_000;

function snapshot(over: Partial<Snapshot> = {}): Snapshot {
  return healthySnapshot(AT, over);
}

const breaker = (provider: string, state: BreakerStateName) => ({
  provider,
  state,
  failureCount: 0,
  retryAfterMs: state === 'OPEN' ? 10_000 : 0,
  history: [],
});

const conn = (id: string, over: Partial<Snapshot['connections'][number]> = {}) => ({
  id,
  provider: 'p',
  status: 'active' as const,
  rateLimitedUntil: null,
  backoffLevel: 0,
  lastError: null,
  errorCode: null,
  inFlight: 0,
  maxConcurrent: null,
  ...over,
});

describe('tray icon: the worst state wins', () => {
  it('is ok when every circuit is closed and nothing cools', () => {
    expect(
      trayLevel({ snapshot: snapshot({ breakers: [breaker('a', 'CLOSED')] }), startupError: null }),
    ).toBe('ok');
  });
  it('is degraded for a degraded or half-open circuit, a cooling connection, or a lockout', () => {
    expect(
      trayLevel({
        snapshot: snapshot({ breakers: [breaker('a', 'DEGRADED')] }),
        startupError: null,
      }),
    ).toBe('degraded');
    expect(
      trayLevel({
        snapshot: snapshot({ breakers: [breaker('a', 'HALF_OPEN')] }),
        startupError: null,
      }),
    ).toBe('degraded');
    expect(
      trayLevel({
        snapshot: snapshot({ connections: [conn('c', { rateLimitedUntil: AT + 5000 })] }),
        startupError: null,
      }),
    ).toBe('degraded');
    expect(
      trayLevel({
        snapshot: snapshot({ connections: [conn('c', { status: 'banned' })] }),
        startupError: null,
      }),
    ).toBe('degraded');
  });
  it('ignores a cooldown that has already run out', () => {
    expect(
      trayLevel({
        snapshot: snapshot({ connections: [conn('c', { rateLimitedUntil: AT - 1 })] }),
        startupError: null,
      }),
    ).toBe('ok');
  });
  it('is open when any circuit is open, even with others degraded', () => {
    expect(
      trayLevel({
        snapshot: snapshot({ breakers: [breaker('a', 'DEGRADED'), breaker('b', 'OPEN')] }),
        startupError: null,
      }),
    ).toBe('open');
  });
  it('is stopped when the gateway is not serving or paused', () => {
    expect(trayLevel({ snapshot: null, startupError: 'port in use' })).toBe('stopped');
    expect(
      trayLevel({ snapshot: snapshot({ breakers: [breaker('b', 'OPEN')] }), startupError: 'x' }),
    ).toBe('stopped');
    expect(
      trayLevel({
        snapshot: snapshot({ gateway: { ...snapshot().gateway, paused: true } }),
        startupError: null,
      }),
    ).toBe('stopped');
  });
  it('uses Template images on macOS and colour variants elsewhere', () => {
    expect(trayIconFile('open', 'darwin')).toBe('tray-openTemplate.png');
    expect(trayIconFile('open', 'win32')).toBe('tray-open.png');
    expect(trayIconFile('ok', 'linux')).toBe('tray-ok.png');
  });
});

describe('tray tooltip and menu', () => {
  it('summarises the state and names open circuits', () => {
    const tip = trayTooltip({
      snapshot: snapshot({ breakers: [breaker('openai', 'OPEN')] }),
      startupError: null,
    });
    expect(tip).toContain('Circuit open: openai');
    expect(tip).toContain('http://127.0.0.1:4141');
    expect(tip.length).toBeLessThanOrEqual(127);
  });
  it('says why it is not serving', () => {
    expect(trayTooltip({ snapshot: null, startupError: '127.0.0.1:4141 is already in use' })).toBe(
      'Breakwater: Not serving: 127.0.0.1:4141 is already in use',
    );
  });
  it('offers pause or resume, reset only when a circuit is not closed, and quit', () => {
    const healthy = trayMenu(
      { snapshot: snapshot({ breakers: [breaker('a', 'CLOSED')] }), startupError: null },
      { openAtLogin: null },
    );
    const actions = healthy.flatMap((i) => (i.kind === 'action' ? [i] : []));
    expect(actions.map((a) => a.action)).toEqual([
      'open-dashboard',
      'copy-base-url',
      'pause',
      'reset-breakers',
      'open-logs',
      'open-data-folder',
      'edit-config',
      'quit',
    ]);
    expect(actions.find((a) => a.action === 'reset-breakers')?.enabled).toBe(false);
    expect(healthy[0]).toEqual({ kind: 'status', label: 'Running, all healthy' });

    const paused = trayMenu(
      {
        snapshot: snapshot({
          gateway: { ...snapshot().gateway, paused: true },
          breakers: [breaker('a', 'OPEN')],
        }),
        startupError: null,
      },
      { openAtLogin: false },
    );
    const pausedActions = paused.flatMap((i) => (i.kind === 'action' ? [i] : []));
    expect(pausedActions.map((a) => a.action)).toContain('resume');
    expect(pausedActions.find((a) => a.action === 'reset-breakers')?.enabled).toBe(true);
    expect(pausedActions.find((a) => a.action === 'toggle-login')).toMatchObject({
      checked: false,
    });
  });
  it('is the same value for the same state, so the menu is rebuilt only on change', () => {
    const input = { snapshot: snapshot({ breakers: [breaker('a', 'OPEN')] }), startupError: null };
    expect(JSON.stringify(trayMenu(input, { openAtLogin: null }))).toBe(
      JSON.stringify(trayMenu(input, { openAtLogin: null })),
    );
  });
});

function transition(
  provider: string,
  from: BreakerStateName,
  to: BreakerStateName,
  at = AT,
): EngineEvent {
  return { type: 'breaker.transition', at, provider, from, to, cause: 'HTTP 503' };
}

describe('notifications: circuit open, coalesced; recovery', () => {
  it('notifies once when a provider circuit opens', () => {
    const { notices } = decideNotifications(
      initialNotifyState,
      [transition('openai', 'DEGRADED', 'OPEN')],
      AT,
    );
    expect(notices).toEqual([
      expect.objectContaining({
        kind: 'circuit-open',
        title: 'openai: circuit open',
        providers: ['openai'],
        page: 'resilience',
      }),
    ]);
  });
  it('puts several providers opening in one batch into one notification', () => {
    const { notices } = decideNotifications(
      initialNotifyState,
      [
        transition('a', 'CLOSED', 'OPEN'),
        transition('b', 'DEGRADED', 'OPEN'),
        transition('c', 'DEGRADED', 'OPEN'),
      ],
      AT,
    );
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      title: '3 circuits open',
      body: 'Breakwater is routing around a, b and c.',
    });
  });
  it('shows at most one per provider per minute, however often it flaps', () => {
    let state = decideNotifications(
      initialNotifyState,
      [transition('a', 'CLOSED', 'OPEN')],
      AT,
    ).state;
    const again = decideNotifications(state, [transition('a', 'HALF_OPEN', 'OPEN')], AT + 10_000);
    expect(again.notices).toEqual([]);
    state = again.state;
    const later = decideNotifications(
      state,
      [transition('a', 'HALF_OPEN', 'OPEN')],
      AT + OPEN_NOTIFY_INTERVAL_MS,
    );
    expect(later.notices).toHaveLength(1);
  });
  it('announces recovery of a provider it announced open, and nothing for others', () => {
    const opened = decideNotifications(
      initialNotifyState,
      [transition('a', 'CLOSED', 'OPEN')],
      AT,
    ).state;
    const rec = decideNotifications(
      opened,
      [transition('a', 'HALF_OPEN', 'CLOSED'), transition('b', 'DEGRADED', 'CLOSED')],
      AT + 20_000,
    );
    expect(rec.notices).toEqual([
      expect.objectContaining({
        kind: 'circuit-recovered',
        title: 'a recovered',
        providers: ['a'],
      }),
    ]);
    expect(rec.state.open).toEqual([]);
  });
  it('takes only the last transition of a provider within one batch', () => {
    const { notices } = decideNotifications(
      initialNotifyState,
      [
        transition('a', 'CLOSED', 'OPEN'),
        transition('a', 'OPEN', 'HALF_OPEN'),
        transition('a', 'HALF_OPEN', 'CLOSED'),
      ],
      AT,
    );
    expect(notices).toEqual([]);
  });
  it('ignores every other event', () => {
    const { notices } = decideNotifications(
      initialNotifyState,
      [{ type: 'gateway.paused', at: AT }],
      AT,
    );
    expect(notices).toEqual([]);
  });
});
