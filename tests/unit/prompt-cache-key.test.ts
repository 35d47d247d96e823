import { describe, expect, it } from 'vitest';
import { withCacheKey } from '../../src/main/engine/proxy/pipeline/prompt-cache';

describe('prompt_cache_key added to a passed-through body without parsing it', () => {
  it('becomes the first member; the rest of the bytes are untouched', () => {
    const body = Buffer.from(' \n {"model":"m","messages":[{"role":"user","content":"é"}]}');
    const out = withCacheKey(body, 'bw-0123');
    expect(JSON.parse(out.toString('utf8'))).toEqual({
      prompt_cache_key: 'bw-0123',
      model: 'm',
      messages: [{ role: 'user', content: 'é' }],
    });
    expect(out.toString('utf8').endsWith(body.toString('utf8').trimStart().slice(1))).toBe(true);
  });

  it('a key with characters JSON must escape stays valid JSON', () => {
    const out = withCacheKey(Buffer.from('{"model":"m"}'), 'a"b\\c\n');
    expect(JSON.parse(out.toString('utf8')).prompt_cache_key).toBe('a"b\\c\n');
  });
});
