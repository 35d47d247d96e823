// The web search backend (`webSearch`), kept as one settings row; its key is sealed like a
// connection's. Read once and kept in memory: searches read it, saves replace it.
import type { WebSearchConfig } from '../../../shared/contract';
import { validateWebSearch } from '../../../shared/schema/web-search';
import { openSecret, type SecretCodec, sealSecret } from './secret-codec';
import type { SettingsRepo } from './settings';

const KEY = 'webSearch';

export interface WebSearchRepo {
  /** The config with its key opened (absent when it cannot be opened here), or null. */
  get(): WebSearchConfig | null;
  set(config: WebSearchConfig | null): void;
}

export function createWebSearchRepo(
  settings: SettingsRepo,
  codec: SecretCodec | undefined,
  onSecretError: (err: unknown) => void = () => {},
): WebSearchRepo {
  let cached: WebSearchConfig | null | undefined;
  const read = (): WebSearchConfig | null => {
    let stored: WebSearchConfig;
    try {
      // Written validated; a row edited by hand is checked the same way, not trusted.
      stored = validateWebSearch(settings.get(KEY), KEY);
    } catch {
      return null;
    }
    const { apiKey, ...rest } = stored;
    const opened = apiKey === undefined ? null : openSecret(apiKey, codec, onSecretError);
    return opened === null ? rest : { ...rest, apiKey: opened };
  };
  return {
    get() {
      if (cached === undefined) cached = read();
      return cached;
    },
    set(config) {
      if (config === null) settings.remove(KEY);
      else {
        const { apiKey, ...rest } = config;
        const sealed = apiKey === undefined ? null : sealSecret(apiKey, codec);
        settings.set(KEY, sealed === null ? rest : { ...rest, apiKey: sealed });
      }
      cached = config;
    },
  };
}

/**
 * `next` with the stored key kept when it names none (as a connection keeps its own), only for
 * the same backend at the same address: a stored key never goes to an address it was not
 * stored for (issue 27's rule for connections).
 */
export function keepingStoredKey(
  next: WebSearchConfig,
  prev: WebSearchConfig | null,
): WebSearchConfig {
  const keep =
    next.apiKey === undefined &&
    next.apiKeyEnv === undefined &&
    prev !== null &&
    prev.apiKey !== undefined &&
    prev.backend === next.backend &&
    prev.url === next.url;
  return keep ? { ...next, apiKey: prev.apiKey } : next;
}
