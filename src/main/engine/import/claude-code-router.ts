// claude-code-router's `~/.claude-code-router/config.json`: `Providers` (name, api_base_url as a
// full endpoint, api_key, models, transformer) and `Router` (a "provider,model" per scenario).
// Each provider becomes one with one connection; each Router scenario becomes a combo of that
// name, so an agent asks for `default`, `think` or `background` as it did through the router.

import type { ProviderConfig, ProviderFormat } from '../../../shared/contract';
import { findPreset } from '../config/presets';
import {
  DraftBuilder,
  type ImportDraft,
  ImportError,
  keyOf,
  lineAt,
  objectOr,
  parseJson,
  toId,
} from './draft';

interface CcrProvider {
  name?: unknown;
  api_base_url?: unknown;
  api_key?: unknown;
  models?: unknown;
  transformer?: { use?: unknown };
}

const ENDPOINTS: [RegExp, ProviderFormat][] = [
  [/\/chat\/completions\/?$/, 'openai-chat'],
  [/\/responses\/?$/, 'openai'],
  [/\/v1\/messages\/?$/, 'anthropic'],
];

/** Top-level keys that configure the router process itself, not a provider. */
const ROUTER_ONLY: Record<string, string> = {
  APIKEY: "the router's own client key: create gateway keys in Breakwater instead",
  PROXY_URL: 'an outbound proxy is not a per-import setting',
  CUSTOM_ROUTER_PATH: 'custom router scripts do not carry over; use a combo strategy',
};

function transformers(p: CcrProvider): string[] {
  const use = p.transformer?.use;
  if (!Array.isArray(use)) return [];
  return use.flatMap((u) =>
    typeof u === 'string' ? [u] : Array.isArray(u) && typeof u[0] === 'string' ? [u[0]] : [],
  );
}

function isLoopback(url: string): boolean {
  try {
    return ['localhost', '127.0.0.1', '[::1]'].includes(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** Our provider for one of its entries, or the reason there is none. */
function providerOf(p: CcrProvider, id: string): ProviderConfig | string {
  const url = typeof p.api_base_url === 'string' ? p.api_base_url.trim() : '';
  if (!url) return 'no api_base_url';
  const models = Array.isArray(p.models)
    ? p.models.filter((m): m is string => typeof m === 'string')
    : [];
  const connection = { id: `${id}-1`, ...keyOf(p.api_key) };
  // Its gemini transformer speaks Google's native API; Google's OpenAI-compatible endpoint takes the same key.
  if (transformers(p).includes('gemini')) {
    const gemini = findPreset('gemini');
    if (!gemini) return 'no Gemini preset';
    return {
      id,
      format: gemini.format,
      baseUrl: gemini.baseUrl,
      authClass: 'api_key',
      connections: [connection],
      models,
    };
  }
  const match = ENDPOINTS.find(([pattern]) => pattern.test(url));
  if (!match)
    return `cannot tell the API of ${url} (expected an endpoint ending in /chat/completions, /responses or /v1/messages)`;
  const baseUrl = url.replace(match[0], '');
  const authClass = isLoopback(url) && !connection.apiKeyEnv ? 'local' : 'api_key';
  return { id, format: match[1], baseUrl, authClass, connections: [connection], models };
}

export function importClaudeCodeRouter(text: string): ImportDraft {
  const root = parseJson(text) as Record<string, unknown> | null;
  if (root === null || typeof root !== 'object' || Array.isArray(root))
    throw new ImportError('expected a JSON object (claude-code-router config.json)', 1);
  if (!Array.isArray(root.Providers)) {
    const at = text.indexOf('"Providers"');
    throw new ImportError(
      'no "Providers" array: not a claude-code-router config.json',
      at >= 0 ? lineAt(text, at) : 1,
    );
  }
  const draft = new DraftBuilder();
  const ids = new Map<string, string>();
  for (const [i, raw] of root.Providers.entries()) {
    const p = (objectOr(raw) ?? {}) as CcrProvider;
    const name = typeof p.name === 'string' && p.name.trim() ? p.name.trim() : `provider-${i + 1}`;
    const id = draft.freeId(toId(name));
    const provider = providerOf(p, id);
    if (typeof provider === 'string') {
      draft.skip(`Providers[${i}] ${name}`, provider);
      continue;
    }
    const extra = transformers(p).filter((t) => t !== 'gemini');
    if (extra.length > 0)
      draft.skip(
        `Providers[${i}] ${name} transformer ${extra.join(', ')}`,
        'Breakwater translates between API formats itself',
      );
    if (draft.addProvider(provider, `Providers[${i}] ${name}`)) ids.set(name, id);
  }
  const router = objectOr(root.Router) ?? {};
  for (const [scenario, value] of Object.entries(router)) {
    if (typeof value !== 'string') {
      draft.skip(
        `Router.${scenario}`,
        scenario === 'longContextThreshold'
          ? 'a threshold is not a target; the context-optimized strategy routes by context window'
          : 'not a "provider,model" route',
      );
      continue;
    }
    const comma = value.indexOf(',');
    if (comma <= 0) {
      draft.skip(`Router.${scenario}`, `"${value}" is not "provider,model"`);
      continue;
    }
    const provider = ids.get(value.slice(0, comma).trim()) ?? toId(value.slice(0, comma).trim());
    const model = value.slice(comma + 1).trim();
    draft.addModel(provider, model);
    draft.addCombo(
      { name: scenario, strategy: 'priority', targets: [`${provider}/${model}`] },
      `Router.${scenario}`,
    );
  }
  for (const [key, reason] of Object.entries(ROUTER_ONLY))
    if (root[key] !== undefined && root[key] !== '') draft.skip(key, reason);
  return draft.build();
}
