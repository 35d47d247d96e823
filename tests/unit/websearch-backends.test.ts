import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brave } from '../../src/main/engine/websearch/brave';
import { fetchBackend } from '../../src/main/engine/websearch/fetch';
import { checkedResults, domainOf } from '../../src/main/engine/websearch/results';
import { searxng } from '../../src/main/engine/websearch/searxng';
import { resolveBackend, WebSearchService } from '../../src/main/engine/websearch/service';
import { tavily } from '../../src/main/engine/websearch/tavily';
import type { ResolvedBackend, SearchQuery } from '../../src/main/engine/websearch/types';
import { validateWebSearch } from '../../src/shared/schema/web-search';

const KEY = 'secret-search-key-0123456789';
const Q: SearchQuery = { query: 'a b&c', maxResults: 5, allowedDomains: [], blockedDomains: [] };
const B = (backend: ResolvedBackend['backend'], url: string): ResolvedBackend => ({
  backend,
  url,
  apiKey: KEY,
  maxResults: 5,
});

describe('request building (the real wire formats)', () => {
  it('SearXNG: GET <url>/search?q=…&format=json, no key', () => {
    const c = searxng.build(Q, { ...B('searxng', 'http://s.local/base/'), apiKey: null });
    expect(c.method).toBe('GET');
    const u = new URL(c.url);
    expect(u.pathname).toBe('/base/search');
    expect(u.searchParams.get('q')).toBe('a b&c');
    expect(u.searchParams.get('format')).toBe('json');
  });
  it('Brave: the key in X-Subscription-Token, count = maxResults', () => {
    const c = brave.build(
      { ...Q, maxResults: 3 },
      B('brave', 'https://api.search.brave.com/res/v1/web/search'),
    );
    expect(c.headers['x-subscription-token']).toBe(KEY);
    expect(new URL(c.url).searchParams.get('count')).toBe('3');
  });
  it('Tavily: POST JSON with the domains, the key as a bearer token', () => {
    const c = tavily.build(
      { ...Q, allowedDomains: ['a.com'], blockedDomains: ['b.com'] },
      B('tavily', 'https://api.tavily.com/search'),
    );
    expect(c.method).toBe('POST');
    expect(c.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(c.body!)).toEqual({
      query: 'a b&c',
      max_results: 5,
      include_domains: ['a.com'],
      exclude_domains: ['b.com'],
    });
  });
});

describe("a backend's answer is hostile input", () => {
  const hostile: unknown[] = [
    null,
    42,
    'results',
    [],
    { results: null },
    { results: 'x' },
    { results: [null, 1, 'x', [], { url: 5 }, { url: 'javascript:alert(1)' }, { url: '' }] },
    { web: { results: { url: 'https://x.test' } } },
    { results: [{ url: 'not a url' }, { url: `https://x.test/${'a'.repeat(5000)}` }] },
  ];
  for (const backend of [searxng, brave, tavily]) {
    it('garbage, null and wrong types give no result and no throw', () => {
      for (const body of hostile) expect(checkedResults(backend.parse(body), Q)).toEqual([]);
    });
  }
  it('fields are cleaned and bounded; wrong-typed fields fall back', () => {
    const raw = searxng.parse({
      results: [
        {
          url: 'https://ok.test/a',
          title: { nested: { deep: [1, 2, 3] } },
          content: `line\u0000one\u001b[31m${'x'.repeat(5000)}`,
          publishedDate: 7,
        },
        { url: 'https://ok.test/a', title: 'duplicate' },
        { url: 'https://two.test/', title: 't'.repeat(1000), content: null },
      ],
    });
    const out = checkedResults(raw, Q);
    expect(out).toHaveLength(2);
    expect(out[0]!.title).toBe('ok.test');
    expect(out[0]!.snippet.includes('\u0000') || out[0]!.snippet.includes('\u001b')).toBe(false);
    expect(out[0]!.snippet.startsWith('lineone[31m')).toBe(true);
    expect(out[0]!.snippet.length).toBeLessThanOrEqual(1000);
    expect(out[0]!.pageAge).toBeNull();
    expect(out[1]!.title.length).toBeLessThanOrEqual(300);
    expect(out[1]!.snippet).toBe('');
  });
  it('allowed and blocked domains apply to subdomains, maxResults caps the list', () => {
    const raw = [
      'https://a.com/1',
      'https://docs.a.com/2',
      'https://evil-a.com/3',
      'https://b.com/4',
    ].map((url) => ({ url, title: url, snippet: '', pageAge: null }));
    const allowed = checkedResults(raw, { ...Q, allowedDomains: ['https://A.com/path'] });
    expect(allowed.map((r) => r.url)).toEqual(['https://a.com/1', 'https://docs.a.com/2']);
    const blocked = checkedResults(raw, { ...Q, blockedDomains: ['a.com'], maxResults: 1 });
    expect(blocked.map((r) => r.url)).toEqual(['https://evil-a.com/3']);
    expect(domainOf('*.Example.org.')).toBe('example.org');
  });
});

describe('the fetch glue: deadline, size bound, errors without secrets', () => {
  let server: Server;
  let url: string;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? '';
      if (path.startsWith('/hang')) return;
      if (path.startsWith('/huge')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let sent = 0;
        const pump = () => {
          while (sent < 64 && res.write(chunk)) sent++;
          if (sent < 64) res.once('drain', pump);
          else res.end();
        };
        pump();
        return;
      }
      if (path.startsWith('/nested')) {
        res.end('['.repeat(200_000) + ']'.repeat(200_000));
        return;
      }
      if (path.startsWith('/garbage')) {
        res.end('<html>not json</html>');
        return;
      }
      if (path.startsWith('/500')) {
        res.writeHead(500);
        res.end(JSON.stringify({ error: `bad key ${KEY}` }));
        return;
      }
      res.end(JSON.stringify({ results: [] }));
    });
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  const call = (path: string) => ({
    method: 'GET' as const,
    url: `${url}${path}?key=${KEY}`,
    headers: { 'x-subscription-token': KEY },
  });
  const limits = { timeoutMs: 300, maxBytes: 1024 * 1024 };

  it.each([
    ['/hang', /did not answer within 0.3 s/],
    ['/huge', /larger than 1048576 bytes/],
    ['/garbage', /not JSON/],
    ['/500', /answered HTTP 500/],
  ])('%s fails with a clear reason that names neither key nor URL', async (path, reason) => {
    const r = await fetchBackend('brave', call(path), limits);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toMatch(reason);
    expect(r.reason).not.toContain(KEY);
    expect(r.reason).not.toContain('127.0.0.1');
  });
  it('deeply nested JSON parses to no result (no stack overflow)', async () => {
    const r = await fetchBackend('searxng', call('/nested'), limits);
    expect(r.ok).toBe(true);
    if (r.ok) expect(checkedResults(searxng.parse(r.body), Q)).toEqual([]);
  });
  it('a refused connection names the error code only', async () => {
    const r = await fetchBackend('tavily', { ...call('/'), url: 'http://127.0.0.1:1/' }, limits);
    expect(r).toEqual({ ok: false, reason: 'tavily could not be reached (ECONNREFUSED)' });
  });
  it('the client going away stops the search', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 20);
    const r = await fetchBackend('searxng', call('/hang'), {
      ...limits,
      timeoutMs: 5000,
      signal: ac.signal,
    });
    expect(r).toEqual({ ok: false, reason: 'the client went away' });
  });
  it('concurrent searches each get their own answer', async () => {
    const svc = new WebSearchService(
      () => ({ backend: 'searxng', url, apiKey: null, maxResults: 5 }),
      1000,
    );
    const all = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        svc.search({ query: `q${i}`, allowedDomains: [], blockedDomains: [] }),
      ),
    );
    expect(all.every((r) => r.ok)).toBe(true);
  });
});

describe('config', () => {
  it('resolves keys from the environment and says why a backend cannot run', () => {
    expect(resolveBackend(null, {})).toMatch(/no search backend is configured/);
    expect(resolveBackend({ backend: 'brave' }, {})).toBe('no brave API key is configured');
    expect(resolveBackend({ backend: 'tavily', apiKeyEnv: 'TV' }, {})).toMatch(/TV is not set/);
    expect(resolveBackend({ backend: 'tavily', apiKeyEnv: 'TV' }, { TV: KEY })).toMatchObject({
      url: 'https://api.tavily.com/search',
      apiKey: KEY,
      maxResults: 5,
    });
  });
  it('validation refuses bad shapes and never echoes the key', () => {
    expect(() => validateWebSearch({ backend: 'searxng' }, 'webSearch')).toThrow(/url/);
    expect(() => validateWebSearch({ backend: 'bing', url: 'http://x' }, 'webSearch')).toThrow(
      /must be one of/,
    );
    expect(() => validateWebSearch({ backend: 'brave', url: 'ftp://x' }, 'webSearch')).toThrow(
      /http/,
    );
    expect(() => validateWebSearch({ backend: 'brave', maxResults: 99 }, 'webSearch')).toThrow(
      /between/,
    );
    expect(() => validateWebSearch({ backend: 'brave', apiKey: 5 }, 'webSearch')).toThrow(/apiKey/);
    try {
      validateWebSearch({ backend: 'brave', apiKey: KEY, extra: 1 }, 'webSearch');
    } catch (err) {
      expect(String(err)).not.toContain(KEY);
    }
  });
});
