import type { WebSearchBackend, WebSearchConfig } from '../../../shared/contract';
import { DEFAULT_WEB_SEARCH_RESULTS } from '../../../shared/schema/web-search';
import { BRAVE_URL, brave } from './brave';
import { fetchBackend } from './fetch';
import { checkedResults } from './results';
import { searxng } from './searxng';
import { TAVILY_URL, tavily } from './tavily';
import type { Backend, ResolvedBackend, SearchOutcome, SearchQuery } from './types';

const BACKENDS: Record<WebSearchBackend, Backend> = { searxng, brave, tavily };
const DEFAULT_URL: Record<WebSearchBackend, string | null> = {
  searxng: null,
  brave: BRAVE_URL,
  tavily: TAVILY_URL,
};

/** A search backend's whole answer is at most this big. */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;
export const DEFAULT_SEARCH_TIMEOUT_MS = 15_000;

/** How often a streaming client waiting on the search loop gets a keep-alive. */
export const DEFAULT_KEEP_ALIVE_MS = 10_000;

function envMs(v: string | undefined, min: number, max: number, fallback: number): number {
  const n = Number(v);
  return v !== undefined && Number.isFinite(n) && n > 0
    ? Math.min(max, Math.max(min, n))
    : fallback;
}

/** `BREAKWATER_WEB_SEARCH_TIMEOUT_MS` and `…_KEEPALIVE_MS`, clamped; the defaults otherwise. */
export function searchTimes(env: NodeJS.ProcessEnv): { timeoutMs: number; keepAliveMs: number } {
  return {
    timeoutMs: envMs(env.BREAKWATER_WEB_SEARCH_TIMEOUT_MS, 100, 120_000, DEFAULT_SEARCH_TIMEOUT_MS),
    keepAliveMs: envMs(env.BREAKWATER_WEB_SEARCH_KEEPALIVE_MS, 50, 60_000, DEFAULT_KEEP_ALIVE_MS),
  };
}

/** The stored config with its key opened (the caller did), resolved against the environment. */
export function resolveBackend(
  config: WebSearchConfig | null,
  env: NodeJS.ProcessEnv,
): ResolvedBackend | string {
  if (!config)
    return 'no search backend is configured (set webSearch in the config or in Settings)';
  const url = config.url ?? DEFAULT_URL[config.backend];
  if (!url) return `${config.backend} has no URL configured`;
  const fromEnv = config.apiKeyEnv ? env[config.apiKeyEnv] : undefined;
  const apiKey = config.apiKey ?? (fromEnv && fromEnv.trim() !== '' ? fromEnv : null);
  if (BACKENDS[config.backend].needsKey && apiKey === null) {
    return config.apiKeyEnv
      ? `no ${config.backend} API key (the environment variable ${config.apiKeyEnv} is not set)`
      : `no ${config.backend} API key is configured`;
  }
  return {
    backend: config.backend,
    url,
    apiKey,
    maxResults: config.maxResults ?? DEFAULT_WEB_SEARCH_RESULTS,
  };
}

export interface SearchAsk {
  query: string;
  allowedDomains: readonly string[];
  blockedDomains: readonly string[];
}

/** Runs searches on the backend the settings name now; an outcome, never a throw. */
export class WebSearchService {
  constructor(
    /** The backend as configured now, or why there is none. */
    private readonly current: () => ResolvedBackend | string,
    private readonly timeoutMs: number = DEFAULT_SEARCH_TIMEOUT_MS,
    /** How often a streaming client waiting on the loop gets a keep-alive. */
    readonly keepAliveMs: number = DEFAULT_KEEP_ALIVE_MS,
  ) {}

  /** The backend's name, or null when none is usable (for the log). */
  backendName(): string | null {
    const b = this.current();
    return typeof b === 'string' ? null : b.backend;
  }

  async search(ask: SearchAsk, signal?: AbortSignal): Promise<SearchOutcome> {
    const b = this.current();
    if (typeof b === 'string') return { ok: false, reason: b };
    const backend = BACKENDS[b.backend];
    const q: SearchQuery = { ...ask, maxResults: b.maxResults };
    const fetched = await fetchBackend(b.backend, backend.build(q, b), {
      timeoutMs: this.timeoutMs,
      maxBytes: MAX_ANSWER_BYTES,
      ...(signal ? { signal } : {}),
    });
    if (!fetched.ok) return fetched;
    return { ok: true, results: checkedResults(backend.parse(fetched.body), q) };
  }
}
