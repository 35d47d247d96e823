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

/** `BREAKWATER_WEB_SEARCH_TIMEOUT_MS`, clamped to 100 ms-2 min; the default otherwise. */
export function searchTimeoutMs(env: NodeJS.ProcessEnv): number {
  const v = Number(env.BREAKWATER_WEB_SEARCH_TIMEOUT_MS);
  return Number.isFinite(v) && v > 0
    ? Math.min(120_000, Math.max(100, v))
    : DEFAULT_SEARCH_TIMEOUT_MS;
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
