import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  announcedRetryMs,
  parseCompactDuration,
  parseResetHeaders,
  parseResetText,
  parseRetryAfter,
  parseTimestamp,
} from '../../src/main/engine/resilience/health/retry-after';

const NOW = Date.parse('2026-03-01T12:00:00Z');

describe('§2 Retry-After: seconds or HTTP date', () => {
  it('delta-seconds, including fractions and surrounding space', () => {
    expect(parseRetryAfter('20', NOW)).toBe(20_000);
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter(' 1.5 ', NOW)).toBe(1_500);
    expect(parseRetryAfter('3600', NOW)).toBe(3_600_000);
  });

  it('an HTTP date, as ms from now; a date in the past gives 0', () => {
    expect(parseRetryAfter('Sun, 01 Mar 2026 12:01:30 GMT', NOW)).toBe(90_000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', NOW)).toBe(0);
  });

  it('absent or unreadable gives null', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeNull();
    expect(parseRetryAfter('', NOW)).toBeNull();
    expect(parseRetryAfter('soon', NOW)).toBeNull();
    expect(parseRetryAfter('-5', NOW)).toBeNull();
    expect(parseRetryAfter('Sun, 99 Foo 2026 GMT', NOW)).toBeNull();
  });
});

describe('§2 rate-limit reset durations such as `1m30s`', () => {
  it('compact durations', () => {
    expect(parseCompactDuration('1m30s')).toBe(90_000);
    expect(parseCompactDuration('6ms')).toBe(6);
    expect(parseCompactDuration('20s')).toBe(20_000);
    expect(parseCompactDuration('0.5s')).toBe(500);
    expect(parseCompactDuration('1h2m3.5s')).toBe(3_723_500);
    expect(parseCompactDuration('2d')).toBe(172_800_000);
    expect(parseCompactDuration('1m6ms')).toBe(60_006);
    expect(parseCompactDuration(' 17ms ')).toBe(17);
  });

  it('anything else is null', () => {
    for (const s of ['', '20', 's', '1x', '1m 30s', 'abc', '-1s', '1.s']) {
      expect(parseCompactDuration(s)).toBeNull();
    }
  });

  it('property: a sum of h/m/s/ms parts reads back as its total', () => {
    fc.assert(
      fc.property(fc.nat(48), fc.nat(59), fc.nat(59), fc.nat(999), (h, m, s, ms) => {
        const parts = [
          h ? `${h}h` : '',
          m ? `${m}m` : '',
          s ? `${s}s` : '',
          ms || !(h || m || s) ? `${ms}ms` : '',
        ].join('');
        expect(parseCompactDuration(parts)).toBe(h * 3_600_000 + m * 60_000 + s * 1_000 + ms);
      }),
    );
  });
});

describe('§2 absolute times: RFC 3339 and HTTP dates', () => {
  it('RFC 3339 with Z, fractions and offsets', () => {
    expect(parseTimestamp('2026-03-01T12:00:20Z', NOW)).toBe(20_000);
    expect(parseTimestamp('2026-03-01T12:00:20.250Z', NOW)).toBe(20_250);
    expect(parseTimestamp('2026-03-01T13:00:00+01:00', NOW)).toBe(0);
    expect(parseTimestamp('2026-03-01T08:00:00-05:00', NOW)).toBe(3_600_000);
  });

  it('not a timestamp → null', () => {
    expect(parseTimestamp('20', NOW)).toBeNull();
    expect(parseTimestamp('1m30s', NOW)).toBeNull();
  });
});

describe('§2 reset headers: `x-ratelimit-reset-requests`/`-tokens` durations and `anthropic-ratelimit-*-reset` timestamps', () => {
  it('OpenAI compact durations', () => {
    expect(parseResetHeaders({ 'x-ratelimit-reset-requests': '1m30s' }, NOW)).toBe(90_000);
    expect(parseResetHeaders({ 'x-ratelimit-reset-tokens': '6ms' }, NOW)).toBe(6);
    expect(parseResetHeaders({ 'x-ratelimit-reset': '12' }, NOW)).toBe(12_000);
  });

  it('Anthropic RFC 3339 reset timestamps', () => {
    expect(
      parseResetHeaders({ 'anthropic-ratelimit-requests-reset': '2026-03-01T12:00:45Z' }, NOW),
    ).toBe(45_000);
    expect(
      parseResetHeaders({ 'anthropic-ratelimit-input-tokens-reset': '2026-03-01T12:02:00Z' }, NOW),
    ).toBe(120_000);
  });

  it('epoch seconds (some gateways) versus a delta in seconds', () => {
    expect(parseResetHeaders({ 'x-ratelimit-reset': String(NOW / 1000 + 30) }, NOW)).toBe(30_000);
    expect(parseResetHeaders({ 'x-ratelimit-reset': String(NOW / 1000 - 30) }, NOW)).toBe(0);
  });

  it('when a `remaining` header shows which budget ran out (remaining = 0), that reset wins', () => {
    const openai = {
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '2s',
      'x-ratelimit-remaining-tokens': '5000',
      'x-ratelimit-reset-tokens': '1m',
    };
    expect(parseResetHeaders(openai, NOW)).toBe(2_000);
    const anthropic = {
      'anthropic-ratelimit-requests-remaining': '10',
      'anthropic-ratelimit-requests-reset': '2026-03-01T12:00:50Z',
      'anthropic-ratelimit-tokens-remaining': '0',
      'anthropic-ratelimit-tokens-reset': '2026-03-01T12:00:05Z',
    };
    expect(parseResetHeaders(anthropic, NOW)).toBe(5_000);
  });

  it('without a `remaining` signal, the longest reset (waiting less would just fail again)', () => {
    expect(
      parseResetHeaders(
        { 'x-ratelimit-reset-requests': '2s', 'x-ratelimit-reset-tokens': '1m' },
        NOW,
      ),
    ).toBe(60_000);
    expect(
      parseResetHeaders(
        {
          'x-ratelimit-remaining-requests': '3',
          'x-ratelimit-reset-requests': '2s',
          'x-ratelimit-reset-tokens': '1m',
        },
        NOW,
      ),
    ).toBe(60_000);
  });

  it('unified (5-hour) headers are not a rate-limit reset; other headers are ignored', () => {
    expect(
      parseResetHeaders(
        {
          'anthropic-ratelimit-unified-reset': '2026-03-01T17:00:00Z',
          'anthropic-ratelimit-unified-5h-reset': '2026-03-01T17:00:00Z',
          'retry-after': '5',
          'x-request-id': 'abc',
        },
        NOW,
      ),
    ).toBeNull();
    expect(parseResetHeaders({}, NOW)).toBeNull();
    expect(parseResetHeaders({ 'x-ratelimit-reset-requests': 'soon' }, NOW)).toBeNull();
    expect(parseResetHeaders({ 'x-ratelimit-reset-requests': undefined }, NOW)).toBeNull();
  });

  it('array-valued headers use the first value', () => {
    expect(parseResetHeaders({ 'x-ratelimit-reset-requests': ['3s', '9s'] }, NOW)).toBe(3_000);
  });
});

describe('§2 a parseable reset hint in the error text ("try again in 20s", "resets at …")', () => {
  it('relative hints', () => {
    expect(parseResetText('Rate limit reached. Please try again in 20s.', NOW)).toBe(20_000);
    expect(parseResetText('Please try again in 6ms', NOW)).toBe(6);
    expect(parseResetText('try again in 1m30s', NOW)).toBe(90_000);
    expect(parseResetText('Please wait 30 seconds before retrying', NOW)).toBe(30_000);
    expect(parseResetText('retry after 2 minutes', NOW)).toBe(120_000);
    expect(parseResetText('Try again in 1.5 hours', NOW)).toBe(5_400_000);
    expect(parseResetText('Your limit resets in 5 hours', NOW)).toBe(18_000_000);
    expect(parseResetText('TRY AGAIN IN 20 SEC', NOW)).toBe(20_000);
  });

  it('absolute hints: "resets at 2026-…Z"', () => {
    expect(parseResetText('Usage limit reached, resets at 2026-03-01T13:00:00Z', NOW)).toBe(
      3_600_000,
    );
    expect(parseResetText('quota resets on 2026-03-02T00:00:00+00:00', NOW)).toBe(12 * 3_600_000);
    expect(parseResetText('resets at 2026-02-01T00:00:00Z', NOW)).toBe(0);
  });

  it('no hint → null', () => {
    for (const t of ['', 'Too many requests', 'rate limited for 20s', 'error 429', 'retry later']) {
      expect(parseResetText(t, NOW)).toBeNull();
    }
  });
});

describe('§2 on 429 prefer what the upstream says: Retry-After, then reset headers, then the text', () => {
  const reset = { 'x-ratelimit-reset-requests': '1m' };
  const text = 'try again in 20s';

  it('Retry-After first', () => {
    expect(announcedRetryMs({ 'retry-after': '5', ...reset }, text, NOW)).toBe(5_000);
  });

  it('reset headers next', () => {
    expect(announcedRetryMs(reset, text, NOW)).toBe(60_000);
  });

  it('the text last; nothing → null (the caller falls back to the backoff)', () => {
    expect(announcedRetryMs({}, text, NOW)).toBe(20_000);
    expect(announcedRetryMs({ 'retry-after': 'nonsense' }, text, NOW)).toBe(20_000);
    expect(announcedRetryMs({}, 'slow down', NOW)).toBeNull();
  });

  it('an array-valued Retry-After uses the first value', () => {
    expect(announcedRetryMs({ 'retry-after': ['7', '9'] }, '', NOW)).toBe(7_000);
  });

  it('property: never negative, whatever the input', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.string(),
        fc.integer({ min: 0, max: 2 ** 42 }),
        (ra, rs, body, now) => {
          const ms = announcedRetryMs(
            { 'retry-after': ra, 'x-ratelimit-reset-tokens': rs },
            body,
            now,
          );
          if (ms !== null) {
            expect(Number.isFinite(ms)).toBe(true);
            expect(ms).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
