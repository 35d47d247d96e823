import { describe, expect, it } from 'vitest';
import {
  connectionDraft,
  connectionPayload,
  type DraftField,
} from '../../src/renderer/src/components/provider-fields';
import { validateConnection } from '../../src/shared/schema/connection';
import { integers } from '../../src/shared/schema/values';
import { rejection } from '../support/validation';

describe('shared schema: the connection form and the engine accept the same counts', () => {
  // The form field, and where the engine finds it in a connection.
  const fields: [DraftField, (n: number) => Record<string, unknown>][] = [
    ['maxConcurrent', (n) => ({ maxConcurrent: n })],
    ['concurrency', (n) => ({ rateLimit: { concurrency: n } })],
    ['requestsPerMinute', (n) => ({ rateLimit: { requestsPerMinute: n } })],
    ['maxWaitMs', (n) => ({ rateLimitOverrides: { maxWaitMs: n } })],
    ['executionMaxWaitMs', (n) => ({ rateLimitOverrides: { executionMaxWaitMs: n } })],
    ['maxQueueDepth', (n) => ({ rateLimitOverrides: { maxQueueDepth: n } })],
  ];
  // Both sides of every range either side uses.
  const edges = [0, 1, 2, 10_000, 10_001, 100_000, 100_001, 1_000_000, 1_000_001, 86_400_000];
  it.each(fields)('%s', (field, placed) => {
    for (const n of [...edges, 86_400_001]) {
      const draft = { ...connectionDraft(null), id: 'c1', [field]: String(n) };
      const form = connectionPayload(draft, null, 'openai').ok;
      let engine = true;
      try {
        validateConnection({ id: 'c1', ...placed(n) }, 'connection');
      } catch {
        engine = false;
      }
      expect({ n, form }).toEqual({ n, form: engine });
    }
  });
});

describe('shared schema: integers', () => {
  const ranges = { a: { min: 0, max: 5 }, b: { min: 1, max: 2 } };
  it('returns only the keys that are set', () => {
    expect(integers({ b: 2 }, 'x', ranges)).toEqual({ b: 2 });
  });
  it('names the field and the allowed keys, in the ranges order', () => {
    expect(rejection(() => integers({ c: 1 }, 'x', ranges)).message).toBe(
      'x.c: unknown field (allowed: a, b)',
    );
    expect(rejection(() => integers({ a: 6 }, 'x', ranges)).message).toBe(
      'x.a: must be between 0 and 5',
    );
  });
});
