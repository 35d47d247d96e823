// CC Switch's provider config (`~/.cc-switch/config.json`, also what it exports as JSON): per app
// (`claude`, `codex`) a map of providers with the settings CC Switch writes into that agent's own
// config, and the `current` one. Claude providers carry `env` (ANTHROPIC_BASE_URL, the token, the
// models); Codex providers carry `auth.OPENAI_API_KEY` and a `config.toml` text. Each app becomes
// a combo (`claude`, `codex`): the current provider first, then those in its failover queue.

import type { ConnectionConfig, ProviderConfig, ProviderFormat } from '../../../shared/contract';
import {
  DraftBuilder,
  type ImportDraft,
  ImportError,
  keyOf,
  objectOr,
  parseJson,
  toId,
} from './draft';

interface CcsProvider {
  id?: unknown;
  name?: unknown;
  settingsConfig?: Record<string, unknown>;
  sortIndex?: unknown;
  inFailoverQueue?: unknown;
  meta?: { apiFormat?: unknown };
}

interface CcsApp {
  providers?: Record<string, CcsProvider>;
  current?: unknown;
}

const CLAUDE_FORMATS: Record<string, ProviderFormat> = {
  anthropic: 'anthropic',
  openai_chat: 'openai-chat',
  openai_responses: 'openai',
};

const CLAUDE_MODEL_VARS = [
  'ANTHROPIC_MODEL',
  'ANTHROPIC_DEFAULT_SONNET_MODEL',
  'ANTHROPIC_DEFAULT_OPUS_MODEL',
  'ANTHROPIC_DEFAULT_HAIKU_MODEL',
  'ANTHROPIC_SMALL_FAST_MODEL',
];

/** One `key = "value"` of a TOML text, top level or in `[table]`; enough for Codex's config. */
function tomlString(toml: string, key: string, table: string | null): string | undefined {
  let current: string | null = null;
  for (const line of toml.split(/\r?\n/)) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header) {
      current = header[1]!.trim();
      continue;
    }
    const kv = /^\s*([A-Za-z0-9_.-]+)\s*=\s*"([^"]*)"/.exec(line);
    if (kv && kv[1] === key && current === table) return kv[2];
  }
  return undefined;
}

function claudeProvider(p: CcsProvider, id: string): Omit<ProviderConfig, 'id'> | string {
  const env = (p.settingsConfig?.env ?? {}) as Record<string, unknown>;
  const token = env.ANTHROPIC_AUTH_TOKEN ?? env.ANTHROPIC_API_KEY;
  if (typeof token !== 'string' || token === '')
    return 'no API key: a Claude account sign-in (add it as a subscription connection in Breakwater)';
  const apiFormat = typeof p.meta?.apiFormat === 'string' ? p.meta.apiFormat : 'anthropic';
  const format = CLAUDE_FORMATS[apiFormat];
  if (!format) return `API format "${apiFormat}" has no Breakwater equivalent here`;
  const baseUrl =
    typeof env.ANTHROPIC_BASE_URL === 'string' && env.ANTHROPIC_BASE_URL
      ? env.ANTHROPIC_BASE_URL
      : 'https://api.anthropic.com';
  const models = [
    ...new Set(
      CLAUDE_MODEL_VARS.map((v) => env[v]).filter(
        (m): m is string => typeof m === 'string' && m !== '',
      ),
    ),
  ];
  return {
    format,
    baseUrl,
    authClass: 'api_key',
    connections: [{ id: `${id}-1`, ...keyOf(token) }],
    models,
  };
}

function codexProvider(p: CcsProvider, id: string): Omit<ProviderConfig, 'id'> | string {
  const toml = typeof p.settingsConfig?.config === 'string' ? p.settingsConfig.config : '';
  const auth = (p.settingsConfig?.auth ?? {}) as Record<string, unknown>;
  const name = tomlString(toml, 'model_provider', null);
  const baseUrl = name ? tomlString(toml, 'base_url', `model_providers.${name}`) : undefined;
  if (!baseUrl)
    return 'no model_providers base_url in its config.toml (a ChatGPT sign-in is not importable)';
  const wire = name ? tomlString(toml, 'wire_api', `model_providers.${name}`) : undefined;
  const envKey = name ? tomlString(toml, 'env_key', `model_providers.${name}`) : undefined;
  const key: Pick<ConnectionConfig, 'apiKey' | 'apiKeyEnv'> = keyOf(auth.OPENAI_API_KEY);
  if (!key.apiKey && envKey) key.apiKeyEnv = envKey;
  const model = tomlString(toml, 'model', null);
  return {
    format: wire === 'chat' ? 'openai-chat' : 'openai',
    baseUrl,
    authClass: 'api_key',
    connections: [{ id: `${id}-1`, ...key }],
    models: model ? [model] : [],
  };
}

function importApp(
  draft: DraftBuilder,
  app: string,
  section: CcsApp,
  toProvider: (p: CcsProvider, id: string) => Omit<ProviderConfig, 'id'> | string,
): void {
  const entries: [string, CcsProvider][] = [];
  for (const [key, p] of Object.entries(objectOr(section.providers) ?? {}))
    if (objectOr(p)) entries.push([key, p as CcsProvider]);
    else draft.skip(`${app}.providers.${key}`, 'not an object');
  entries.sort(([, a], [, b]) => (Number(a.sortIndex) || 0) - (Number(b.sortIndex) || 0));
  const order: string[] = [];
  for (const [key, p] of entries) {
    const name = typeof p.name === 'string' && p.name ? p.name : key;
    const item = `${app}.providers.${key} (${name})`;
    const id = draft.freeId(toId(name));
    const provider = toProvider(p, id);
    if (typeof provider === 'string') {
      draft.skip(item, provider);
      continue;
    }
    if (!draft.addProvider({ id, ...provider }, item)) continue;
    const first = provider.models[0];
    if (first === undefined) draft.skip(`${item} in combo ${app}`, 'no model named');
    else if (key === section.current) order.unshift(`${id}/${first}`);
    else if (p.inFailoverQueue === true) order.push(`${id}/${first}`);
  }
  if (order.length > 0)
    draft.addCombo(
      { name: app, strategy: 'priority', targets: order },
      `${app} (current provider, then the failover queue)`,
    );
}

export function importCcSwitch(text: string): ImportDraft {
  if (/^\s*(--|(PRAGMA|BEGIN|CREATE|INSERT)\b)/i.test(text))
    throw new ImportError(
      'this is a SQL database export; import the JSON provider config (~/.cc-switch/config.json) instead',
      1,
    );
  const root = objectOr(parseJson(text));
  if (!root) throw new ImportError('expected a JSON object (CC Switch config.json)', 1);
  // The first config format held Claude's providers at the top level.
  const claude = (objectOr(root.claude) ?? (root.providers ? root : undefined)) as
    | CcsApp
    | undefined;
  const codex = (objectOr(root.codex) ?? undefined) as CcsApp | undefined;
  if (!claude?.providers && !codex?.providers)
    throw new ImportError('no "claude" or "codex" providers: not a CC Switch config', 1);
  const draft = new DraftBuilder();
  if (claude?.providers) importApp(draft, 'claude', claude, claudeProvider);
  if (codex?.providers) importApp(draft, 'codex', codex, codexProvider);
  for (const app of ['gemini', 'opencode', 'openclaw', 'hermes'])
    if ((objectOr(root[app]) as CcsApp | null)?.providers)
      draft.skip(`${app} providers`, 'only the Claude Code and Codex providers are imported');
  return draft.build();
}
