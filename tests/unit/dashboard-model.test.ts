import { describe, expect, it } from 'vitest';
import { applyEvent } from '../../src/renderer/src/state/apply-event';
import {
  addToRate,
  applySnapshot,
  emptyModel,
  incidents,
  nextDeadline,
  RATE_BUCKETS,
  rateWindow,
} from '../../src/renderer/src/state/model';
import { createSseParser } from '../../src/shared/admin-client';
import type { RequestLogEntry, Snapshot } from '../../src/shared/contract';

const AT = 1_800_000_000_000;

function snap(over: Partial<Snapshot> = {}): Snapshot {
  return {
    at: AT,
    gateway: {
      version: 'x',
      host: '127.0.0.1',
      port: 1,
      baseUrl: 'http://127.0.0.1:1',
      startedAt: AT,
      paused: false,
      requestsTotal: 0,
      errorsTotal: 0,
      inFlight: 0,
    },
    breakers: [],
    connections: [
      {
        id: 'c1',
        provider: 'p',
        status: 'active',
        rateLimitedUntil: null,
        backoffLevel: 0,
        lastError: null,
        errorCode: null,
        inFlight: 0,
        maxConcurrent: null,
      },
    ],
    lockouts: [],
    queues: [],
    leases: [],
    sessions: [],
    ...over,
  };
}

const entry = (id: number, status: number, at = AT): RequestLogEntry => ({
  id,
  at,
  clientFormat: 'openai-chat',
  modelRequested: 'm',
  target: 'p/m',
  provider: 'p',
  connection: 'c1',
  status,
  latencyMs: 5,
  ttfbMs: 2,
  stream: false,
  bytesIn: 1,
  bytesOut: 1,
  inputTokens: 1,
  outputTokens: 1,
  cachedTokens: null,
  errorClass: null,
  errorMessage: null,
  decision: null,
  egressIp: null,
});

describe('dashboard store: applyEvent', () => {
  const base = applySnapshot(emptyModel, snap(), AT);

  it('counts a completed request and its error, and lists it first', () => {
    const m = applyEvent(
      applyEvent(base, { type: 'request.completed', at: AT, entry: entry(1, 200) }),
      {
        type: 'request.completed',
        at: AT,
        entry: entry(2, 503),
      },
    );
    expect(m.snapshot?.gateway).toMatchObject({ requestsTotal: 2, errorsTotal: 1 });
    expect(m.recent.map((r) => r.id)).toEqual([2, 1]);
    expect(m.rate.at(-1)).toMatchObject({ requests: 2, errors: 1 });
  });

  it('turns a breaker OPEN from its transition event, even one the snapshot did not list yet', () => {
    const m = applyEvent(base, {
      type: 'breaker.transition',
      at: AT,
      provider: 'p',
      from: 'DEGRADED',
      to: 'OPEN',
      cause: 'HTTP 503',
    });
    expect(m.snapshot?.breakers).toEqual([
      expect.objectContaining({
        provider: 'p',
        state: 'OPEN',
        history: [expect.objectContaining({ to: 'OPEN' })],
      }),
    ]);
    expect(m.activity[0]).toMatchObject({ tone: 'bad' });
  });

  it('does not list a transition twice when the snapshot already holds it', () => {
    const event = {
      type: 'breaker.transition' as const,
      at: AT,
      provider: 'p',
      from: 'DEGRADED' as const,
      to: 'OPEN' as const,
      cause: 'HTTP 503',
    };
    const once = applyEvent(base, event);
    const twice = applyEvent(once, event);
    expect(twice.snapshot?.breakers[0]?.history).toHaveLength(1);
  });

  it('marks a connection cooling with its end, and clears it on recovery', () => {
    const cooling = applyEvent(base, {
      type: 'connection.cooldown',
      at: AT,
      provider: 'p',
      connection: 'c1',
      status: 'active',
      until: AT + 30_000,
      cause: 'HTTP 429',
    });
    expect(cooling.snapshot?.connections[0]).toMatchObject({
      rateLimitedUntil: AT + 30_000,
      lastError: 'HTTP 429',
    });
    const back = applyEvent(cooling, {
      type: 'connection.recovered',
      at: AT,
      provider: 'p',
      connection: 'c1',
      status: 'active',
      until: null,
      cause: '',
    });
    expect(back.snapshot?.connections[0]).toMatchObject({
      rateLimitedUntil: null,
      lastError: null,
      backoffLevel: 0,
    });
  });

  it('adds and removes lockouts, and follows pause/resume', () => {
    const lockout = {
      provider: 'p',
      connection: 'c1',
      model: 'm',
      scope: 'model' as const,
      reason: '404',
      failureCount: 1,
      expiresAt: AT + 1000,
    };
    const locked = applyEvent(base, { type: 'lockout.added', at: AT, lockout, cause: '' });
    expect(locked.snapshot?.lockouts).toHaveLength(1);
    expect(
      applyEvent(locked, { type: 'lockout.cleared', at: AT, lockout, cause: '' }).snapshot
        ?.lockouts,
    ).toEqual([]);
    expect(applyEvent(base, { type: 'gateway.paused', at: AT }).snapshot?.gateway.paused).toBe(
      true,
    );
  });
});

describe('dashboard store: configuration version', () => {
  const base = applySnapshot(emptyModel, snap(), AT);

  it('counts config.changed events, so pages that list configuration know to reload', () => {
    expect(base.configVersion).toBe(0);
    const once = applyEvent(base, { type: 'config.changed', at: AT, what: 'providers' });
    const twice = applyEvent(once, { type: 'config.changed', at: AT, what: 'combos' });
    expect(once.configVersion).toBe(1);
    expect(twice.configVersion).toBe(2);
  });

  it('leaves the version alone for events that are not configuration changes', () => {
    const m = applyEvent(applyEvent(base, { type: 'gateway.paused', at: AT }), {
      type: 'request.completed',
      at: AT,
      entry: entry(1, 200),
    });
    expect(m.configVersion).toBe(0);
  });
});

describe('dashboard store: derived views', () => {
  it('schedules a read at the earliest timer (lazy recovery)', () => {
    const s = snap({
      breakers: [
        { provider: 'p', state: 'OPEN', failureCount: 2, retryAfterMs: 15_000, history: [] },
      ],
      lockouts: [
        {
          provider: 'p',
          connection: 'c1',
          model: 'm',
          scope: 'model',
          reason: 'x',
          failureCount: 1,
          expiresAt: AT + 5000,
        },
      ],
    });
    expect(nextDeadline(s)).toBe(AT + 5000);
    expect(nextDeadline(snap())).toBeNull();
  });
  it('lists incidents worst first', () => {
    const s = snap({
      breakers: [
        { provider: 'a', state: 'DEGRADED', failureCount: 5, retryAfterMs: 0, history: [] },
        { provider: 'b', state: 'OPEN', failureCount: 9, retryAfterMs: 1000, history: [] },
      ],
    });
    expect(incidents(s).map((i) => i.key)).toEqual(['breaker:b', 'breaker:a']);
  });
  it('keeps a fixed window of rate buckets', () => {
    let rate = addToRate([], AT, false);
    rate = addToRate(rate, AT + 1_000_000, true);
    expect(rate).toHaveLength(1);
    expect(rateWindow(rate, AT + 1_000_000)).toHaveLength(RATE_BUCKETS);
  });
});

describe('SSE parsing for the browser bridge', () => {
  it('splits messages across chunks and skips comments', () => {
    const parse = createSseParser();
    expect(parse('event: request.completed\ndata: {"a"')).toEqual([]);
    expect(parse(':1}\n\n: keep-alive\n\nevent: x\r\ndata: 2\r\n\r\n')).toEqual([
      { event: 'request.completed', data: '{"a":1}' },
      { event: 'x', data: '2' },
    ]);
  });
});

describe('provider cooldown events', () => {
  it('mark the provider as cooling until the announced end', () => {
    const m = applyEvent(applySnapshot(emptyModel, snap(), AT), {
      type: 'provider.cooldown',
      at: AT,
      provider: 'p',
      until: AT + 60_000,
      cause: 'HTTP 503',
    });
    expect(m.snapshot?.breakers.find((b) => b.provider === 'p')?.cooldownUntil).toBe(AT + 60_000);
    expect(m.activity[0]).toMatchObject({ tone: 'warn' });
  });

  it('clear it when the cooldown is over', () => {
    const cooling = applyEvent(applySnapshot(emptyModel, snap(), AT), {
      type: 'provider.cooldown',
      at: AT,
      provider: 'p',
      until: AT + 60_000,
      cause: 'HTTP 503',
    });
    const m = applyEvent(cooling, {
      type: 'provider.recovered',
      at: AT + 60_000,
      provider: 'p',
      cause: 'expired',
    });
    expect(m.snapshot?.breakers.find((b) => b.provider === 'p')?.cooldownUntil).toBeNull();
    expect(m.activity[0]).toMatchObject({ tone: 'ok' });
  });
});
