import type { WebSearchBackend } from '../../../shared/contract';
import type { IrSearchResult } from '../translate/ir';

/** What one search asks the backend for. */
export interface SearchQuery {
  query: string;
  maxResults: number;
  /** Only results from these domains (and their subdomains), when any are given. */
  allowedDomains: readonly string[];
  blockedDomains: readonly string[];
}

/** The backend as the gateway resolved it: its URL and key, ready to call. */
export interface ResolvedBackend {
  backend: WebSearchBackend;
  url: string;
  /** Null for SearXNG, and when the key is missing (the search then says so). */
  apiKey: string | null;
  maxResults: number;
}

/** An HTTP call a backend's request builder describes; the fetch glue sends it. */
export interface BackendCall {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** One backend: a pure request builder and a parser of its (untrusted) answer. */
export interface Backend {
  /** Whether it cannot be called without a key. */
  readonly needsKey: boolean;
  build(q: SearchQuery, b: ResolvedBackend): BackendCall;
  /** The answer's results, unchecked: `results.ts` bounds and filters them. */
  parse(body: unknown): RawResult[];
}

/** A result as a backend named its fields, before it is checked. */
export interface RawResult {
  url: unknown;
  title: unknown;
  snippet: unknown;
  pageAge: unknown;
}

export type SearchOutcome = { ok: true; results: IrSearchResult[] } | { ok: false; reason: string };
