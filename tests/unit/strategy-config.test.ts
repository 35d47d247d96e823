import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/main/engine/config/catalog';
import { loadModelDefaults } from '../../src/main/engine/routing/model-defaults';
import {
  nextReset,
  quotaFromHeaders,
  remainingShare,
  resetTime,
} from '../../src/main/engine/routing/rate-limit-headers';
import { openStore, type Store } from '../../src/main/engine/store/index';
import { comboTargets, validateCombo } from '../../src/shared/schema/combo';
import { validateModelEntry, validateProvider } from '../../src/shared/schema/provider';
import { ValidationError } from '../../src/shared/validation-error';

function rejection(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('expected a ValidationError');
}

const RANGES = {
  connectMs: { min: 1, max: 600_000 },
  firstByteMs: { min: 1, max: 600_000 },
  idleMs: { min: 1, max: 600_000 },
  totalMs: { min: 1, max: 86_400_000 },
};

describe('combos: strategies, weighted targets and options', () => {
  it('accepts weighted targets next to plain ones and keeps the options a strategy reads', () => {
    const combo = validateCombo(
      {
        name: 'c',
        strategy: 'round-robin',
        targets: ['a/m', { target: 'b/m@b-2', weight: 3 }, { target: 'c/m' }],
        options: { stickyLimit: 5 },
      },
      'x',
    );
    expect(combo).toEqual({
      name: 'c',
      strategy: 'round-robin',
      targets: ['a/m', { target: 'b/m@b-2', weight: 3 }, { target: 'c/m' }],
      options: { stickyLimit: 5 },
    });
  });
  it('refuses an option the strategy does not read, naming the ones it does', () => {
    const err = rejection(() =>
      validateCombo(
        { name: 'c', strategy: 'weighted', targets: ['a/m'], options: { stickyLimit: 2 } },
        'x',
      ),
    );
    expect(err.field).toBe('x.options.stickyLimit');
    expect(err.reason).toBe('is not an option of weighted (its options: contextEditing)');
    const auto = rejection(() =>
      validateCombo(
        { name: 'c', strategy: 'auto', targets: ['a/m'], options: { windowMs: 5000 } },
        'x',
      ),
    );
    expect(auto.reason).toBe('is not an option of auto (its options: weights, contextEditing)');
  });
  it('contextEditing: a switch of any strategy, checked as one', () => {
    for (const strategy of ['priority', 'weighted', 'quota-share'] as const) {
      expect(
        validateCombo(
          { name: 'c', strategy, targets: ['a/m'], options: { contextEditing: true } },
          'x',
        ).options,
      ).toEqual({ contextEditing: true });
    }
    expect(
      validateCombo(
        { name: 'c', strategy: 'priority', targets: ['a/m'], options: { contextEditing: false } },
        'x',
      ).options,
    ).toEqual({ contextEditing: false });
    const err = rejection(() =>
      validateCombo(
        { name: 'c', strategy: 'priority', targets: ['a/m'], options: { contextEditing: 'yes' } },
        'x',
      ),
    );
    expect(err.field).toBe('x.options.contextEditing');
    expect(err.reason).toBe('must be true or false');
  });
  it('quota-share: unit and the switch for sharing between keys', () => {
    expect(
      validateCombo(
        {
          name: 'c',
          strategy: 'quota-share',
          targets: ['a/m'],
          options: { unit: 'tokens', quotaShareConcurrencyLimit: {} },
        },
        'x',
      ).options,
    ).toEqual({ unit: 'tokens', quotaShareConcurrencyLimit: { enabled: true } });
    const unit = rejection(() =>
      validateCombo(
        { name: 'c', strategy: 'quota-share', targets: ['a/m'], options: { unit: 'usd' } },
        'x',
      ),
    );
    expect(unit.field).toBe('x.options.unit');
  });
  it('holds options to their ranges', () => {
    const cases: [unknown, string][] = [
      [{ strategy: 'round-robin', options: { stickyLimit: 0 } }, 'x.options.stickyLimit'],
      [{ strategy: 'least-used', options: { windowMs: 10 } }, 'x.options.windowMs'],
      [{ strategy: 'auto', options: { weights: { cost: 101 } } }, 'x.options.weights.cost'],
      [{ strategy: 'auto', options: { weights: { speed: 1 } } }, 'x.options.weights.speed'],
    ];
    for (const [extra, field] of cases) {
      expect(
        rejection(() => validateCombo({ name: 'c', targets: ['a/m'], ...(extra as object) }, 'x'))
          .field,
      ).toBe(field);
    }
  });
  it('refuses bad weights and a weighted combo whose weights are all 0', () => {
    expect(
      rejection(() => validateCombo({ name: 'c', targets: [{ target: 'a/m', weight: -1 }] }, 'x'))
        .field,
    ).toBe('x.targets[0].weight');
    expect(
      rejection(() => validateCombo({ name: 'c', targets: [{ target: 'a', weight: 1 }] }, 'x'))
        .field,
    ).toBe('x.targets[0].target');
    expect(
      rejection(() => validateCombo({ name: 'c', targets: [{ target: 'a/m', w: 1 }] }, 'x')).field,
    ).toBe('x.targets[0].w');
    const zero = rejection(() =>
      validateCombo(
        { name: 'c', strategy: 'weighted', targets: [{ target: 'a/m', weight: 0 }] },
        'x',
      ),
    );
    expect(zero.reason).toBe('weighted needs at least one weight above 0');
  });
  it('multi-call strategies: their options, required and checked, with clear errors', () => {
    const fusion = validateCombo(
      { name: 'f', strategy: 'fusion', options: { panel: ['a/m', 'b/m@b-1'], judge: 'c/m' } },
      'x',
    );
    expect(fusion).toEqual({
      name: 'f',
      strategy: 'fusion',
      targets: [],
      options: { panel: ['a/m', 'b/m@b-1'], judge: 'c/m' },
    });
    expect(comboTargets(fusion)).toEqual(['a/m', 'b/m@b-1', 'c/m']);
    const relay = validateCombo(
      { name: 'r', strategy: 'context-relay', targets: ['a/m'], options: { summarizer: 's/m' } },
      'x',
    );
    expect(relay.options).toEqual({ summarizer: 's/m' });
    expect(
      validateCombo({ name: 'p', strategy: 'pipeline', targets: ['a/m', 'b/m'] }, 'x'),
    ).toEqual({ name: 'p', strategy: 'pipeline', targets: ['a/m', 'b/m'] });
    const cases: [unknown, string, RegExp][] = [
      [{ strategy: 'fusion', options: { judge: 'c/m' } }, 'x.options.panel', /required by fusion/],
      [
        { strategy: 'fusion', options: { panel: ['a/m'] } },
        'x.options.judge',
        /required by fusion/,
      ],
      [
        { strategy: 'fusion', options: { panel: [], judge: 'c/m' } },
        'x.options.panel',
        /1 to 8 targets/,
      ],
      [
        { strategy: 'fusion', options: { panel: ['a/m', 'a/m'], judge: 'c/m' } },
        'x.options.panel',
        /twice/,
      ],
      [
        { strategy: 'fusion', options: { panel: ['nope'], judge: 'c/m' } },
        'x.options.panel[0]',
        /provider\/model/,
      ],
      [
        { strategy: 'fusion', targets: ['a/m'], options: { panel: ['a/m'], judge: 'c/m' } },
        'x.targets',
        /must be empty for fusion/,
      ],
      [
        { strategy: 'context-relay', targets: ['a/m'] },
        'x.options.summarizer',
        /required by context-relay/,
      ],
      [
        {
          strategy: 'context-relay',
          targets: ['a/m'],
          options: { summarizer: 's/m', judge: 'j/m' },
        },
        'x.options.judge',
        /not an option of context-relay \(its options: summarizer, contextEditing\)/,
      ],
      [
        { strategy: 'pipeline', targets: ['a/m'], options: { panel: ['a/m'] } },
        'x.options.panel',
        /not an option of pipeline \(its options: contextEditing\)/,
      ],
      // Issue 27: a pipeline makes one upstream call per target, each paid, in sequence.
      [
        { strategy: 'pipeline', targets: Array.from({ length: 9 }, (_, i) => `p/m${i}`) },
        'x.targets',
        /a pipeline runs at most 8 steps/,
      ],
    ];
    for (const [combo, field, reason] of cases) {
      const err = rejection(() => validateCombo({ name: 'c', ...(combo as object) }, 'x'));
      expect(err.field).toBe(field);
      expect(err.reason).toMatch(reason);
    }
  });
});

describe('model entries: an id, or { id, contextWindow, price }', () => {
  it('accepts both forms and drops a repeated plain id', () => {
    const p = validateProvider(
      {
        id: 'o',
        format: 'openai',
        baseUrl: 'https://o.example/v1',
        models: [
          'a',
          {
            id: 'gpt-5',
            contextWindow: 400000,
            price: { input: 1.25, output: 10, cacheRead: 0.125 },
          },
          'a',
        ],
      },
      'p',
      RANGES,
    );
    expect(p.models).toEqual([
      'a',
      { id: 'gpt-5', contextWindow: 400000, price: { input: 1.25, output: 10, cacheRead: 0.125 } },
    ]);
  });
  it('refuses an id given twice with a spec, unknown fields, and bad numbers', () => {
    const base = { id: 'o', format: 'openai', baseUrl: 'https://o.example/v1' };
    expect(
      rejection(() =>
        validateProvider({ ...base, models: ['a', { id: 'a', contextWindow: 5 }] }, 'p', RANGES),
      ).field,
    ).toBe('p.models[1]');
    expect(rejection(() => validateModelEntry({ id: 'a', window: 5 }, 'm')).field).toBe('m.window');
    expect(rejection(() => validateModelEntry({ id: 'a', contextWindow: 0 }, 'm')).field).toBe(
      'm.contextWindow',
    );
    expect(rejection(() => validateModelEntry({ id: 'a', price: { input: 1 } }, 'm')).field).toBe(
      'm.price.output',
    );
    expect(
      rejection(() => validateModelEntry({ id: 'a', price: { input: -1, output: 1 } }, 'm')).field,
    ).toBe('m.price.input');
  });
});

describe('model metadata: configured entries over the reviewed defaults', () => {
  const defaults = loadModelDefaults();
  it('the defaults table passes the model-entry schema and knows the common models', () => {
    expect(defaults.get('gpt-5')).toEqual({
      contextWindow: 400000,
      price: { input: 1.25, output: 10, cacheRead: 0.125 },
      capabilities: ['vision', 'tools', 'reasoning', 'webSearch'],
    });
    expect(defaults.get('claude-sonnet-4-5')?.contextWindow).toBe(200000);
  });
  it('config wins field by field; dated, -latest and vendor/ ids fall back to the base id', () => {
    const catalog = new Catalog(
      [
        {
          id: 'o',
          format: 'openai',
          baseUrl: 'https://o.example/v1',
          authClass: 'api_key',
          models: [
            { id: 'gpt-5', contextWindow: 272000 },
            'claude-sonnet-4-5-20250929',
            'x/claude-haiku-4-5-latest',
            'mine',
          ],
          timeouts: {},
          enabled: true,
          connections: [],
        },
      ],
      [],
      {},
      defaults,
    );
    expect(catalog.modelSpec('o', 'gpt-5')).toEqual({
      id: 'gpt-5',
      contextWindow: 272000,
      price: { input: 1.25, output: 10, cacheRead: 0.125 },
      capabilities: ['vision', 'tools', 'reasoning', 'webSearch'],
    });
    expect(catalog.modelSpec('o', 'claude-sonnet-4-5-20250929').price?.input).toBe(3);
    expect(catalog.modelSpec('o', 'x/claude-haiku-4-5-latest').price?.output).toBe(5);
    expect(catalog.modelSpec('o', 'mine')).toEqual({ id: 'mine' });
    expect(catalog.providers.get('o')!.models).toEqual([
      'gpt-5',
      'claude-sonnet-4-5-20250929',
      'x/claude-haiku-4-5-latest',
      'mine',
    ]);
    expect(catalog.providerView(catalog.providers.get('o')!).modelSpecs).toEqual([
      { id: 'gpt-5', contextWindow: 272000 },
    ]);
  });
});

describe('store: options, weighted targets and model entries in the existing JSON columns', () => {
  let dir: string;
  let store: Store | undefined;
  afterEach(() => {
    store?.close();
    store = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  it('round-trips through a real SQLite file and reads old plain target lists', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bw-strategy-'));
    const file = path.join(dir, 'db.sqlite');
    store = openStore(file);
    store.providers.upsert({
      id: 'o',
      format: 'openai',
      baseUrl: 'https://o.example/v1',
      authClass: 'api_key',
      models: ['a', { id: 'b', price: { input: 1, output: 2 } }],
      timeouts: {},
      enabled: true,
      position: 0,
    });
    store.combos.upsert({
      name: 'w',
      strategy: 'weighted',
      targets: [{ target: 'o/a', weight: 2 }, 'o/b'],
    });
    store.combos.upsert({
      name: 'r',
      strategy: 'round-robin',
      targets: ['o/a'],
      options: { stickyLimit: 3 },
    });
    store.db.prepare('UPDATE combos SET targets = \'["o/a","o/b"]\' WHERE name = \'w\'').run();
    store.close();
    store = openStore(file);
    expect(store.providers.get('o')!.models).toEqual([
      'a',
      { id: 'b', price: { input: 1, output: 2 } },
    ]);
    expect(store.combos.get('r')).toMatchObject({ targets: ['o/a'], options: { stickyLimit: 3 } });
    expect(store.combos.get('w')).toMatchObject({ strategy: 'weighted', targets: ['o/a', 'o/b'] });
    expect(store.combos.get('w')!.options).toBeUndefined();
  });
});

describe('rate-limit headers', () => {
  const NOW = 1_700_000_000_000;
  it('OpenAI durations, Anthropic dates, epoch seconds', () => {
    expect(resetTime('6m0s', NOW)).toBe(NOW + 360_000);
    expect(resetTime('1h2m3.5s', NOW)).toBe(NOW + 3_723_500);
    expect(resetTime('20ms', NOW)).toBe(NOW + 20);
    expect(resetTime('30', NOW)).toBe(NOW + 30_000);
    expect(resetTime('1700000100', NOW)).toBe(1_700_000_100_000);
    expect(resetTime('2023-11-14T22:15:00Z', NOW)).toBe(Date.parse('2023-11-14T22:15:00Z'));
    expect(resetTime('soon', NOW)).toBeNull();
  });
  it('the smaller remaining share and the soonest reset', () => {
    const q = quotaFromHeaders(
      {
        'x-ratelimit-remaining-requests': '40',
        'x-ratelimit-limit-requests': '50',
        'x-ratelimit-remaining-tokens': '1000',
        'x-ratelimit-limit-tokens': '10000',
        'x-ratelimit-reset-requests': '2s',
        'x-ratelimit-reset-tokens': '1m',
      },
      NOW,
    )!;
    expect(remainingShare(q)).toBeCloseTo(0.1);
    expect(nextReset(q)).toBe(NOW + 2000);
  });
  it('subscription utilization, and no headers at all', () => {
    const q = quotaFromHeaders(
      {
        'anthropic-ratelimit-unified-5h-utilization': '0.75',
        'anthropic-ratelimit-unified-5h-reset': '1700003600',
      },
      NOW,
    )!;
    expect(remainingShare(q)).toBeCloseTo(0.25);
    expect(nextReset(q)).toBe(1_700_003_600_000);
    expect(quotaFromHeaders({ 'content-type': 'application/json' }, NOW)).toBeNull();
  });
});
