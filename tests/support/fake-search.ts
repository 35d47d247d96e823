// A fake web search backend on loopback, speaking SearXNG's JSON API (`GET /search`), Brave's
// web search (`GET /res/v1/web/search`) and Tavily's (`POST /search`), with scripted faults.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FakeSearchRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary bodies.
  body: any;
}

/** One scripted answer; without one, the results below in the route's format. */
export interface FakeSearchStep {
  status?: number;
  /** Sent instead of the generated body (objects as JSON, strings as-is). */
  body?: unknown;
  /** Never answer (a hung backend). */
  hang?: boolean;
}

export interface FakeSearch {
  url: string;
  requests: FakeSearchRequest[];
  script(...steps: FakeSearchStep[]): void;
  reset(): void;
  close(): Promise<void>;
}

/** What every route answers with by default. */
export const FAKE_RESULTS = [
  {
    url: 'https://breakwater.example/docs',
    title: 'Breakwater docs',
    snippet: 'Breakwater is an LLM gateway.',
    age: '2 days ago',
  },
  {
    url: 'https://news.example.org/breakwater',
    title: 'Breakwater released',
    snippet: 'The gateway runs web searches for any provider.',
    age: '2026-11-30',
  },
];

function answerFor(req: FakeSearchRequest): unknown {
  if (req.path.startsWith('/res/v1/web/search')) {
    return {
      type: 'search',
      web: {
        type: 'search',
        results: FAKE_RESULTS.map((r) => ({
          title: r.title,
          url: r.url,
          description: r.snippet,
          age: r.age,
        })),
      },
    };
  }
  if (req.method === 'POST') {
    return {
      query: req.body?.query,
      results: FAKE_RESULTS.map((r) => ({
        title: r.title,
        url: r.url,
        content: r.snippet,
        score: 0.9,
        published_date: r.age,
      })),
      response_time: 0.5,
    };
  }
  return {
    query: req.query.q,
    number_of_results: FAKE_RESULTS.length,
    results: FAKE_RESULTS.map((r) => ({
      url: r.url,
      title: r.title,
      content: r.snippet,
      publishedDate: r.age,
      engine: 'fake',
    })),
  };
}

export async function startFakeSearch(): Promise<FakeSearch> {
  let queue: FakeSearchStep[] = [];
  const requests: FakeSearchRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      const rec: FakeSearchRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body,
      };
      requests.push(rec);
      const step = queue.shift() ?? {};
      if (step.hang) return;
      const out = step.body ?? answerFor(rec);
      const text = typeof out === 'string' ? out : JSON.stringify(out);
      res.writeHead(step.status ?? 200, { 'content-type': 'application/json' });
      res.end(text);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...steps) => queue.push(...steps),
    reset() {
      queue = [];
      requests.length = 0;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
