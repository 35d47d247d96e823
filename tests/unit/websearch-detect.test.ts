import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_USES,
  maySearch,
  runsNatively,
  searchToolOf,
} from '../../src/main/engine/websearch/detect';

describe('which requests carry a search tool the API would run', () => {
  it("finds each format's tool and what it allows", () => {
    expect(
      searchToolOf('anthropic', {
        tools: [
          { name: 'x', input_schema: {} },
          {
            type: 'web_search_20250305',
            name: 'web_search',
            max_uses: 3,
            allowed_domains: ['a.com', 5, ''],
            blocked_domains: ['b.com'],
          },
        ],
      }),
    ).toEqual({ maxUses: 3, allowedDomains: ['a.com'], blockedDomains: ['b.com'] });
    expect(
      searchToolOf('openai-responses', {
        tools: [{ type: 'web_search_preview', filters: { allowed_domains: ['c.org'] } }],
      }),
    ).toEqual({ maxUses: DEFAULT_MAX_USES, allowedDomains: ['c.org'], blockedDomains: [] });
    expect(searchToolOf('gemini', { tools: [{ google_search: {} }] })).not.toBeNull();
  });

  it('hostile tool lists find nothing, or bounded values', () => {
    for (const tools of [
      null,
      'x',
      5,
      [null, 1, 'web_search', [], { type: 7 }],
      { type: 'web_search' },
    ]) {
      expect(searchToolOf('anthropic', { tools })).toBeNull();
      expect(searchToolOf('openai-responses', { tools })).toBeNull();
    }
    // Another format's spelling is not this format's tool.
    expect(searchToolOf('anthropic', { tools: [{ type: 'web_search' }] })).toBeNull();
    expect(
      searchToolOf('openai-responses', { tools: [{ type: 'web_search_20250305' }] }),
    ).toBeNull();
    const big = searchToolOf('anthropic', {
      tools: [
        {
          type: 'web_search_20250305',
          max_uses: 1e9,
          allowed_domains: Array.from({ length: 10_000 }, (_, i) => `d${i}.com`),
        },
      ],
    });
    expect(big?.maxUses).toBe(20);
    expect(big?.allowedDomains).toHaveLength(100);
    for (const max_uses of [0, -1, 1.5, '3', null]) {
      expect(
        searchToolOf('anthropic', { tools: [{ type: 'web_search_20250305', max_uses }] })?.maxUses,
      ).toBe(DEFAULT_MAX_USES);
    }
  });

  it('the byte scan and the native providers', () => {
    expect(maySearch('anthropic', Buffer.from('{"tools":[{"type":"web_search_20250305"}]}'))).toBe(
      true,
    );
    expect(maySearch('anthropic', Buffer.from('{"tools":[]}'))).toBe(false);
    expect(maySearch('gemini', Buffer.from('{"tools":[{"googleSearch":{}}]}'))).toBe(true);
    expect(runsNatively('anthropic', 'anthropic')).toBe(true);
    expect(runsNatively('openai-responses', 'openai')).toBe(true);
    expect(runsNatively('openai-responses', 'openai-chat')).toBe(false);
    expect(runsNatively('anthropic', 'openai')).toBe(false);
    expect(runsNatively('gemini', 'gemini')).toBe(true);
  });
});
