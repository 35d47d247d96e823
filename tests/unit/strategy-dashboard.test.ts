import { describe, expect, it } from 'vitest';
import {
  activityOf,
  comboOf,
  draftOf,
  intentOf,
  mergeRows,
} from '../../src/renderer/src/pages/combos/combo-model';
import type { ComboConfig, RequestLogEntry } from '../../src/shared/contract';

function row(id: number, model: string, target: string | null, status = 200): RequestLogEntry {
  return {
    id,
    at: id,
    clientFormat: 'openai-chat',
    modelRequested: model,
    target,
    provider: null,
    connection: null,
    status,
    latencyMs: 1,
    ttfbMs: null,
    stream: false,
    bytesIn: 0,
    bytesOut: 0,
    inputTokens: null,
    outputTokens: null,
    cachedTokens: null,
    errorClass: null,
    errorMessage: null,
    decision: `d${id}`,
    egressIp: null,
  };
}

describe('combos page model', () => {
  it('a draft round-trips a weighted combo with options through the shared schema', () => {
    const combo: ComboConfig = {
      name: 'c',
      strategy: 'auto',
      targets: [{ target: 'a/m', weight: 3 }, 'b/m@b-1'],
      options: { weights: { cost: 50, latency: 10 } },
    };
    const draft = draftOf(combo);
    expect(draft.targets).toBe('a/m *3\nb/m@b-1');
    expect(draft.options).toEqual({ 'weights.cost': '50', 'weights.latency': '10' });
    expect(comboOf(draft)).toEqual({ combo });
  });
  it('context editing round-trips as on, off or unset (the global setting)', () => {
    for (const contextEditing of [true, false]) {
      const combo: ComboConfig = {
        name: 'c',
        strategy: 'priority',
        targets: ['a/m'],
        options: { contextEditing },
      };
      expect(draftOf(combo).options).toEqual({ contextEditing: String(contextEditing) });
      expect(comboOf(draftOf(combo))).toEqual({ combo });
    }
    const unset = comboOf({
      name: 'c',
      strategy: 'priority',
      targets: 'a/m',
      options: { contextEditing: '' },
    });
    expect(unset).toEqual({ combo: { name: 'c', strategy: 'priority', targets: ['a/m'] } });
  });
  it('reports the schema error with its field, as the engine would', () => {
    const bad = comboOf({
      name: 'c',
      strategy: 'round-robin',
      targets: 'a/m',
      options: { stickyLimit: '0' },
    });
    expect(bad).toEqual({
      error: 'combo.options.stickyLimit: must be between 1 and 1000000',
      field: 'combo.options.stickyLimit',
    });
    expect(
      comboOf({ name: 'c', strategy: 'weighted', targets: 'a/m *x', options: {} }),
    ).toMatchObject({
      field: 'combo.targets[0].weight',
    });
  });
  it('says what a strategy intends', () => {
    expect(
      intentOf({ name: 'w', strategy: 'weighted', targets: [{ target: 'a/m', weight: 3 }, 'b/m'] }),
    ).toBe('a/m 75%, b/m 25%');
    expect(
      intentOf({
        name: 'r',
        strategy: 'round-robin',
        targets: ['a/m', 'b/m'],
        options: { stickyLimit: 2 },
      }),
    ).toBe('each target in turn, 2 request(s) a turn: about 50% each');
  });
  it('splits the latest 100 requests of a combo by the target that served, and the latest reason', () => {
    const rows = [
      ...Array.from({ length: 120 }, (_, i) => row(1000 - i, 'c', i % 4 === 0 ? 'b/m' : 'a/m')),
      row(2000, 'other', 'x/m'),
      row(1500, 'c', 'a/m', 503),
    ].sort((x, y) => y.id - x.id);
    const a = activityOf(rows, 'c');
    expect(a.total).toBe(100);
    expect(a.latest).toBe('d1500');
    expect(a.split).toEqual([
      { target: 'a/m', count: 74, share: 0.74 },
      { target: 'b/m', count: 25, share: 0.25 },
      { target: 'none', count: 1, share: 0.01 },
    ]);
  });
  it('merges fetched and live rows once each, newest first', () => {
    expect(
      mergeRows([row(1, 'c', null), row(3, 'c', null)], [row(3, 'c', null), row(2, 'c', null)]).map(
        (r) => r.id,
      ),
    ).toEqual([3, 2, 1]);
  });
});

describe('the combo editor: multi-call strategies', () => {
  it('fusion: panel one a line and the judge, round trip, checked like the config', () => {
    const combo = {
      name: 'council',
      strategy: 'fusion' as const,
      targets: [],
      options: { panel: ['a/m', 'b/m'], judge: 'c/m' },
    };
    const draft = draftOf(combo);
    expect(draft.options).toEqual({ panel: 'a/m\nb/m', judge: 'c/m' });
    expect(comboOf(draft)).toEqual({ combo });
    expect(intentOf(combo)).toBe('a/m, b/m answer in parallel; c/m writes the answer from theirs');
    expect(comboOf({ ...draft, options: { panel: 'a/m' } })).toEqual({
      error: 'combo.options.judge: is required by fusion',
      field: 'combo.options.judge',
    });
  });

  it('context-relay needs its summarizer; pipeline has no options', () => {
    const relay = {
      name: 'r',
      strategy: 'context-relay' as const,
      targets: 'a/m\nb/m',
      options: {},
    };
    expect(comboOf(relay)).toMatchObject({ field: 'combo.options.summarizer' });
    expect(comboOf({ ...relay, options: { summarizer: 's/m' } })).toMatchObject({
      combo: { options: { summarizer: 's/m' } },
    });
    expect(comboOf({ ...relay, strategy: 'pipeline' })).toMatchObject({
      combo: { strategy: 'pipeline', targets: ['a/m', 'b/m'] },
    });
  });
});
