import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/main/engine/config/validate';
import type { Logger } from '../../src/main/engine/logger';
import type { SettingDef } from '../../src/main/engine/settings/setting-def';
import {
  flattenSettings,
  Settings,
  type SettingsStore,
} from '../../src/main/engine/settings/settings';
import { rejection } from '../support/validation';

/** In-memory SettingsStore that counts writes. */
class MemoryStore implements SettingsStore {
  data: Record<string, unknown>;
  writes = 0;

  constructor(initial: Record<string, unknown> = {}) {
    this.data = { ...initial };
  }

  all(): Record<string, unknown> {
    return { ...this.data };
  }

  setMany(values: Record<string, unknown>): void {
    if (Object.keys(values).length > 0) this.writes++;
    Object.assign(this.data, values);
  }

  remove(key: string): boolean {
    if (!(key in this.data)) return false;
    this.writes++;
    delete this.data[key];
    return true;
  }
}

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, warn: (m) => warnings.push(m), error() {} };
}

const DEFS: SettingDef[] = [
  {
    key: 'timeouts.connectMs',
    kind: 'integer',
    defaultValue: 10_000,
    env: 'BW_CONNECT_MS',
    min: 100,
    max: 300_000,
    unit: 'ms',
    description: 'connect timeout',
  },
  {
    key: 'modelLockout.enabled',
    kind: 'boolean',
    defaultValue: false,
    env: 'BW_LOCKOUT',
    description: 'model lockout switch',
  },
  {
    key: 'queue.maxWaiting',
    kind: 'integer',
    defaultValue: 100,
    min: 0,
    max: 10_000,
    unit: 'count',
    description: 'queue size',
  },
];

function settings(opts: { env?: Record<string, string>; saved?: Record<string, unknown> } = {}) {
  const store = new MemoryStore(opts.saved);
  const log = recordingLogger();
  const s = new Settings(store, opts.env ?? {}, log, DEFS);
  return { s, store, log };
}

function sourceOf(s: Settings, key: string): string | undefined {
  return s.view().find((v) => v.key === key)?.source;
}

describe('precedence: environment variable (only the default) < persisted setting', () => {
  it('with nothing set, the registry default applies', () => {
    const { s } = settings();
    expect(s.number('timeouts.connectMs')).toBe(10_000);
    expect(s.boolean('modelLockout.enabled')).toBe(false);
    expect(sourceOf(s, 'timeouts.connectMs')).toBe('default');
  });

  it('an environment variable changes the default', () => {
    const { s } = settings({ env: { BW_CONNECT_MS: '2500', BW_LOCKOUT: 'true' } });
    expect(s.number('timeouts.connectMs')).toBe(2500);
    expect(s.boolean('modelLockout.enabled')).toBe(true);
    expect(sourceOf(s, 'timeouts.connectMs')).toBe('env');
    expect(sourceOf(s, 'modelLockout.enabled')).toBe('env');
  });

  it('a saved value wins over the environment variable', () => {
    const { s } = settings({
      env: { BW_CONNECT_MS: '2500' },
      saved: { 'timeouts.connectMs': 7000 },
    });
    expect(s.number('timeouts.connectMs')).toBe(7000);
    expect(sourceOf(s, 'timeouts.connectMs')).toBe('saved');
  });

  it('clearing the saved value (null) falls back to the environment variable', () => {
    const { s, store } = settings({
      env: { BW_CONNECT_MS: '2500' },
      saved: { 'timeouts.connectMs': 7000 },
    });
    s.update({ 'timeouts.connectMs': null });
    expect(store.data).toEqual({});
    expect(s.number('timeouts.connectMs')).toBe(2500);
    expect(sourceOf(s, 'timeouts.connectMs')).toBe('env');
  });

  it('clearing a value that was never saved is harmless', () => {
    const { s } = settings();
    s.update({ 'queue.maxWaiting': null });
    expect(s.number('queue.maxWaiting')).toBe(100);
  });

  it('the real registry reads its documented environment variables', () => {
    const s = new Settings(
      new MemoryStore(),
      { BREAKWATER_UPSTREAM_CONNECT_TIMEOUT_MS: '1234' },
      recordingLogger(),
    );
    expect(s.number('timeouts.connectMs')).toBe(1234);
    expect(s.number('requestLog.retentionDays')).toBe(30);
  });
});

describe('values read at start are clamped to their allowed range', () => {
  it('environment values below min or above max are clamped', () => {
    expect(settings({ env: { BW_CONNECT_MS: '5' } }).s.number('timeouts.connectMs')).toBe(100);
    expect(settings({ env: { BW_CONNECT_MS: '999999999' } }).s.number('timeouts.connectMs')).toBe(
      300_000,
    );
  });

  it('fractional environment values are rounded', () => {
    expect(settings({ env: { BW_CONNECT_MS: '1500.6' } }).s.number('timeouts.connectMs')).toBe(
      1501,
    );
  });

  it('boolean environment values accept 1/true/yes/on and 0/false/no/off, any case', () => {
    for (const raw of ['1', 'true', 'YES', 'On']) {
      expect(settings({ env: { BW_LOCKOUT: raw } }).s.boolean('modelLockout.enabled')).toBe(true);
    }
    for (const raw of ['0', 'false', 'No', 'OFF']) {
      const { s } = settings({ env: { BW_LOCKOUT: raw } });
      expect(s.boolean('modelLockout.enabled')).toBe(false);
      expect(sourceOf(s, 'modelLockout.enabled')).toBe('env');
    }
  });

  it('saved values out of range are clamped on load, and fractions rounded', () => {
    const { s } = settings({ saved: { 'timeouts.connectMs': 1, 'queue.maxWaiting': 123_456.7 } });
    expect(s.number('timeouts.connectMs')).toBe(100);
    expect(s.number('queue.maxWaiting')).toBe(10_000);
    expect(sourceOf(s, 'timeouts.connectMs')).toBe('saved');
  });
});

describe('invalid environment values are ignored with a warning', () => {
  it('a non-number for an integer setting', () => {
    const { s, log } = settings({ env: { BW_CONNECT_MS: 'soon' } });
    expect(s.number('timeouts.connectMs')).toBe(10_000);
    expect(sourceOf(s, 'timeouts.connectMs')).toBe('default');
    expect(log.warnings).toEqual(['ignoring BW_CONNECT_MS="soon": not a valid integer']);
  });

  it('a non-boolean for a boolean setting', () => {
    const { s, log } = settings({ env: { BW_LOCKOUT: 'maybe' } });
    expect(s.boolean('modelLockout.enabled')).toBe(false);
    expect(log.warnings).toEqual(['ignoring BW_LOCKOUT="maybe": not a valid boolean']);
  });

  it('Infinity and 12abc are not integers', () => {
    for (const raw of ['Infinity', '12abc']) {
      const { s, log } = settings({ env: { BW_CONNECT_MS: raw } });
      expect(s.number('timeouts.connectMs')).toBe(10_000);
      expect(log.warnings).toHaveLength(1);
    }
  });

  it('an empty variable counts as unset, without a warning', () => {
    const { s, log } = settings({ env: { BW_CONNECT_MS: '' } });
    expect(sourceOf(s, 'timeouts.connectMs')).toBe('default');
    expect(log.warnings).toEqual([]);
  });
});

describe('saved values of the wrong type or for unknown keys are ignored on load', () => {
  it('wrong type is ignored with a warning', () => {
    const { s, log } = settings({
      saved: { 'timeouts.connectMs': '5000', 'modelLockout.enabled': 1 },
    });
    expect(s.number('timeouts.connectMs')).toBe(10_000);
    expect(s.boolean('modelLockout.enabled')).toBe(false);
    expect(log.warnings).toEqual([
      'ignoring saved setting timeouts.connectMs: stored value is not valid',
      'ignoring saved setting modelLockout.enabled: stored value is not valid',
    ]);
  });

  it('keys the registry does not know are skipped', () => {
    const { s, log } = settings({ saved: { 'retired.setting': 5 } });
    expect(s.view().map((v) => v.key)).toEqual(DEFS.map((d) => d.key));
    expect(log.warnings).toEqual([]);
  });
});

describe('an update that is out of range or invalid is rejected with a clear message and changes nothing', () => {
  it('accepts valid values and saves them', () => {
    const { s, store } = settings();
    s.update({
      'timeouts.connectMs': 300_000,
      'modelLockout.enabled': true,
      'queue.maxWaiting': 0,
    });
    expect(store.data).toEqual({
      'timeouts.connectMs': 300_000,
      'modelLockout.enabled': true,
      'queue.maxWaiting': 0,
    });
    expect(s.number('timeouts.connectMs')).toBe(300_000);
    expect(s.boolean('modelLockout.enabled')).toBe(true);
    expect(s.number('queue.maxWaiting')).toBe(0);
  });

  it('out of range', () => {
    const { s } = settings();
    const low = rejection(() => s.update({ 'timeouts.connectMs': 99 }));
    expect(low.field).toBe('timeouts.connectMs');
    expect(low.reason).toBe('must be between 100 and 300000');
    expect(rejection(() => s.update({ 'timeouts.connectMs': 300_001 })).reason).toBe(
      'must be between 100 and 300000',
    );
  });

  it('unknown key', () => {
    const err = rejection(() => settings().s.update({ 'timeouts.readMs': 5000 }));
    expect(err.field).toBe('timeouts.readMs');
    expect(err.reason).toBe('unknown setting');
  });

  it('wrong type', () => {
    const { s } = settings();
    expect(rejection(() => s.update({ 'timeouts.connectMs': '5000' })).reason).toBe(
      'must be an integer (ms)',
    );
    expect(rejection(() => s.update({ 'timeouts.connectMs': 5000.5 })).reason).toBe(
      'must be an integer (ms)',
    );
    expect(rejection(() => s.update({ 'timeouts.connectMs': true })).reason).toBe(
      'must be an integer (ms)',
    );
    expect(rejection(() => s.update({ 'modelLockout.enabled': 1 })).reason).toBe(
      'must be true or false',
    );
    expect(rejection(() => s.update({ 'modelLockout.enabled': 'true' })).reason).toBe(
      'must be true or false',
    );
  });

  it('all or nothing: one bad value rejects the whole update', () => {
    const { s, store } = settings({ saved: { 'queue.maxWaiting': 50 } });
    const before = s.view();
    for (const bad of [
      { 'timeouts.connectMs': 5000, 'queue.maxWaiting': -1 },
      { 'modelLockout.enabled': true, nope: 1 },
      { 'queue.maxWaiting': null, 'timeouts.connectMs': 'x' },
    ]) {
      expect(() => s.update(bad)).toThrow(ValidationError);
    }
    expect(store.writes).toBe(0);
    expect(store.data).toEqual({ 'queue.maxWaiting': 50 });
    expect(s.view()).toEqual(before);
  });
});

describe('view() reports each setting with its source', () => {
  it('value, default, source, env, unit and range', () => {
    const { s } = settings({ env: { BW_LOCKOUT: 'on' }, saved: { 'queue.maxWaiting': 7 } });
    expect(s.view()).toEqual([
      {
        key: 'timeouts.connectMs',
        value: 10_000,
        defaultValue: 10_000,
        source: 'default',
        env: 'BW_CONNECT_MS',
        description: 'connect timeout',
        unit: 'ms',
        min: 100,
        max: 300_000,
      },
      {
        key: 'modelLockout.enabled',
        value: true,
        defaultValue: false,
        source: 'env',
        env: 'BW_LOCKOUT',
        description: 'model lockout switch',
        unit: null,
        min: null,
        max: null,
      },
      {
        key: 'queue.maxWaiting',
        value: 7,
        defaultValue: 100,
        source: 'saved',
        env: null,
        description: 'queue size',
        unit: 'count',
        min: 0,
        max: 10_000,
      },
    ]);
  });

  it('number() and boolean() refuse unknown keys and the wrong kind', () => {
    const { s } = settings();
    expect(() => s.number('nope')).toThrow('unknown setting nope');
    expect(() => s.number('modelLockout.enabled')).toThrow('is not numeric');
    expect(() => s.boolean('timeouts.connectMs')).toThrow('is not boolean');
  });

  it('unknownKeys lists the keys the registry does not know', () => {
    const { s } = settings();
    expect(s.unknownKeys({ 'timeouts.connectMs': 1, 'a.b': 2, c: 3 })).toEqual(['a.b', 'c']);
  });
});

describe('flattenSettings: config files nest, settings keys are dotted', () => {
  it('the ARCHITECTURE.md resilience block', () => {
    expect(flattenSettings({ modelLockout: { enabled: true } })).toEqual({
      'modelLockout.enabled': true,
    });
  });

  it('deep nesting, several keys, arrays and null kept as values', () => {
    expect(
      flattenSettings({
        modelLockout: {
          enabled: true,
          errorCodes: [429, 503],
          backoff: { baseCooldownMs: 120_000 },
        },
        concurrencyLimit: { enabled: false },
        top: null,
      }),
    ).toEqual({
      'modelLockout.enabled': true,
      'modelLockout.errorCodes': [429, 503],
      'modelLockout.backoff.baseCooldownMs': 120_000,
      'concurrencyLimit.enabled': false,
      top: null,
    });
  });

  it('with a prefix, and empty objects vanish', () => {
    expect(flattenSettings({ a: 1, empty: {} }, 'resilience')).toEqual({ 'resilience.a': 1 });
    expect(flattenSettings({})).toEqual({});
  });
});

describe('an environment value that is not a plain number is ignored with a warning', () => {
  it.each([' ', '0x10', '12ms', 'NaN'])('%j leaves the default in place', (raw) => {
    const { s, log } = settings({ env: { BW_CONNECT_MS: raw } });
    expect(s.number('timeouts.connectMs')).toBe(DEFS[0]!.defaultValue);
    expect(sourceOf(s, 'timeouts.connectMs')).toBe('default');
    expect(log.warnings.join('\n')).toContain('BW_CONNECT_MS');
  });
});

describe('derived values', () => {
  it('are computed once and again only after an update', () => {
    const { s } = settings();
    let computed = 0;
    const connect = s.derived((x) => {
      computed++;
      return { ms: x.number('timeouts.connectMs') };
    });
    const first = connect();
    expect(connect()).toBe(first);
    expect(computed).toBe(1);
    s.update({ 'timeouts.connectMs': 4000 });
    expect(connect()).toEqual({ ms: 4000 });
    expect(computed).toBe(2);
    s.update({ 'timeouts.connectMs': null });
    expect(connect().ms).toBe(10_000);
  });

  it('a rejected update leaves the derived value as it was', () => {
    const { s } = settings();
    const connect = s.derived((x) => x.number('timeouts.connectMs'));
    expect(() => s.update({ 'timeouts.connectMs': -1 })).toThrow();
    expect(connect()).toBe(10_000);
  });
});
