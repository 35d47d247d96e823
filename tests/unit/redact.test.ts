import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/main/engine/logger';

describe('anything shaped like a credential is masked before it is written anywhere', () => {
  it('OpenAI-style keys: sk-…, sk-proj-…', () => {
    expect(redactSecrets('key sk-abcdefghijklmnop rejected')).toBe('key [redacted] rejected');
    expect(redactSecrets('sk-proj-AbC_123-xyz789QRS')).toBe('[redacted]');
  });

  it('Anthropic keys: sk-ant-…', () => {
    expect(redactSecrets('x-api-key was sk-ant-api03-AbCdEfGh_ijkl-MNOP, try again')).toBe(
      'x-api-key was [redacted], try again',
    );
  });

  it('Breakwater lease tokens: bwl_…', () => {
    expect(redactSecrets('lease bwl_0123456789abcdef released')).toBe(
      'lease bwl_[redacted] released',
    );
  });

  it('Bearer tokens, any case', () => {
    expect(redactSecrets('Authorization: Bearer eyJhbGciOi.JIUzI1NiJ9.abc')).toBe(
      'Authorization: Bearer [redacted]',
    );
    expect(redactSecrets('sent bearer abcdefgh12345678')).toBe('sent bearer [redacted]');
  });

  it('api_key=…, apiKey: …, token=… in query strings and text', () => {
    // The mask runs to the next space or quote, so the rest of a query string goes with it.
    const url = redactSecrets('GET https://host/v1/models?api_key=abcdefgh12345&limit=5');
    expect(url.startsWith('GET https://host/v1/models?api_key=[redacted]')).toBe(true);
    expect(url).not.toContain('abcdefgh12345');
    expect(redactSecrets('apiKey: zyxwvutsrq987654')).toBe('apiKey: [redacted]');
    expect(redactSecrets('API-KEY=zyxwvutsrq987654')).toBe('API-KEY=[redacted]');
    expect(redactSecrets('token=0123456789abcdef')).toBe('token=[redacted]');
  });

  it('"x-api-key": "…" and "api_key": "…" in JSON', () => {
    expect(redactSecrets('{"x-api-key": "k_live_0123456789", "model": "gpt-5"}')).toBe(
      '{"x-api-key": "[redacted]", "model": "gpt-5"}',
    );
    expect(redactSecrets('{"api_key":"abcdefghijkl"}')).toBe('{"api_key":"[redacted]"}');
  });

  it('every occurrence in a message, not only the first', () => {
    expect(redactSecrets('sk-aaaaaaaaaaaa then sk-bbbbbbbbbbbb')).toBe(
      '[redacted] then [redacted]',
    );
  });
});

describe('explicit extra secrets are masked wherever they appear', () => {
  it('a literal secret of any shape', () => {
    expect(redactSecrets('upstream said: invalid key hunter2hunter2!', ['hunter2hunter2'])).toBe(
      'upstream said: invalid key [redacted]!',
    );
    expect(redactSecrets('a=XyZ9;b=XyZ9', ['XyZ9'])).toBe('a=[redacted];b=[redacted]');
  });

  it('secrets shorter than 4 characters are not treated as secrets', () => {
    expect(redactSecrets('abc and ab', ['abc', 'ab', ''])).toBe('abc and ab');
  });

  it('no extra secret survives, wherever it is placed', () => {
    const secret = fc.stringMatching(/^[A-Z0-9]{4,24}$/);
    fc.assert(
      fc.property(fc.string(), secret, fc.string(), (before, s, after) => {
        expect(redactSecrets(`${before}${s}${after}`, [s])).not.toContain(s);
      }),
    );
  });

  it('no sk- key survives when it stands on its own', () => {
    const body = fc.stringMatching(/^[A-Za-z0-9_-]{12,40}$/);
    fc.assert(
      fc.property(fc.string(), body, fc.string(), (before, b, after) => {
        expect(redactSecrets(`${before} sk-${b} ${after}`)).not.toContain(`sk-${b}`);
      }),
    );
  });
});

describe('ordinary text is left untouched', () => {
  it('log lines, model names, token counts and hyphenated words', () => {
    const lines = [
      'POST /v1/chat/completions openai/gpt-5@openai-1 429 in 1234 ms',
      'breaker openai: CLOSED -> OPEN after 5 failures (retry in 30000 ms)',
      'usage: prompt_tokens=1200 completion_tokens=37 max_tokens: 4096',
      'task-manager-service and risk-assessment-report are fine',
      'model claude-sonnet-4-5 via anthropic-1; bearer of bad news',
      'Token count exceeded',
      'skip-the-queue',
      '',
    ];
    for (const line of lines) expect(redactSecrets(line)).toBe(line);
  });

  it('short values after key-like words are kept (too short to be credentials)', () => {
    expect(redactSecrets('api_key=abc token: 1234')).toBe('api_key=abc token: 1234');
  });

  it('redacting twice changes nothing more', () => {
    const once = redactSecrets(
      'Bearer abcdefgh12345678 api_key=abcdefgh12345 sk-abcdefghijkl bwl_abcdefghijkl',
    );
    expect(redactSecrets(once)).toBe(once);
  });
});
