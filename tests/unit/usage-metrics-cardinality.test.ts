// /metrics series per model are bounded: a provider that routes any model name lets a client
// invent one per request, and each series would be kept and scraped for the life of the process.
import { describe, expect, it } from 'vitest';
import type { UsageSample } from '../../src/main/engine/usage/accounting';
import { MAX_MODEL_SERIES, RequestMetrics } from '../../src/main/engine/usage/metrics';

function sample(model: string): UsageSample {
  return {
    at: 0,
    provider: 'open',
    connection: 'open-1',
    model,
    combo: '',
    keyName: '',
    session: '',
    inputTokens: 10,
    outputTokens: 2,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    costUsd: 0.001,
    error: false,
    estimated: false,
  };
}

const answered = { status: 200, errorClass: null, latencyMs: 5, ttfbMs: 1 };

function modelLabels(text: string): Set<string> {
  return new Set(
    [...text.matchAll(/breakwater_tokens_total\{[^}]*model="([^"]*)"/g)].map((m) => m[1]!),
  );
}

describe('model series in /metrics', () => {
  it('keeps the first models by name and folds later ones into model="other", tokens kept', () => {
    const m = new RequestMetrics();
    const n = MAX_MODEL_SERIES + 300;
    for (let i = 0; i < n; i++) m.observe(answered, sample(`invented-${i}`));
    // A model seen before the cap keeps its own series after it.
    m.observe(answered, sample('invented-0'));
    const text = m.text();
    const labels = modelLabels(text);
    expect(labels.size).toBe(MAX_MODEL_SERIES + 1);
    expect(labels.has('other')).toBe(true);
    expect(labels.has(`invented-${MAX_MODEL_SERIES}`)).toBe(false);
    const other = text.match(
      /breakwater_tokens_total\{provider="open",model="other",type="input"\} (\d+)/,
    );
    expect(Number(other?.[1])).toBe(300 * 10);
    const first = text.match(
      /breakwater_tokens_total\{provider="open",model="invented-0",type="input"\} (\d+)/,
    );
    expect(Number(first?.[1])).toBe(20);
  });
});
