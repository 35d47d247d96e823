// `webSearch` through the admin API and the Settings page: shown without its key, saved
// validated, the stored key kept when a save names none for the same backend.
import type { EngineEvent, WebSearchConfig, WebSearchView } from '../../../shared/contract';
import { DEFAULT_WEB_SEARCH_RESULTS, validateWebSearch } from '../../../shared/schema/web-search';
import type { WebSearchRepo } from '../store';
import { keepingStoredKey } from '../store/web-search';

export interface WebSearchAdmin {
  view(): { webSearch: WebSearchView | null };
  save(input: unknown): { webSearch: WebSearchView | null };
  remove(): { webSearch: null };
}

export function viewOf(c: WebSearchConfig, env: NodeJS.ProcessEnv): WebSearchView {
  const fromEnv = c.apiKeyEnv ? env[c.apiKeyEnv] : undefined;
  return {
    backend: c.backend,
    url: c.url ?? null,
    apiKeyEnv: c.apiKeyEnv ?? null,
    hasSecret: c.apiKey !== undefined || (fromEnv !== undefined && fromEnv.trim() !== ''),
    maxResults: c.maxResults ?? DEFAULT_WEB_SEARCH_RESULTS,
  };
}

export function webSearchAdmin(
  repo: WebSearchRepo,
  env: NodeJS.ProcessEnv,
  emit: (e: EngineEvent) => void,
  now: () => number,
): WebSearchAdmin {
  const view = () => {
    const c = repo.get();
    return { webSearch: c ? viewOf(c, env) : null };
  };
  const changed = () => emit({ type: 'config.changed', at: now(), what: 'webSearch' });
  return {
    view,
    save(input) {
      repo.set(keepingStoredKey(validateWebSearch(input, 'webSearch'), repo.get()));
      changed();
      return view();
    },
    remove() {
      repo.set(null);
      changed();
      return { webSearch: null };
    },
  };
}
