// OmniRoute's settings export (Settings → export JSON): `providerConnections` (one account or key
// of a provider, by priority), `providerNodes` (custom OpenAI- or Anthropic-compatible endpoints),
// `combos` (models as "provider/model" with a strategy) and `settings`. Its resilience settings
// share Breakwater's names (the model comes from there), so those whose key we know carry over.

import type { ComboStrategy, ComboTarget, ProviderConfig } from '../../../shared/contract';
import { MULTI_CALL_STRATEGIES, STRATEGIES } from '../../../shared/schema/combo';
import { findPreset } from '../config/presets';
import { findSetting } from '../settings/registry';
import { flattenSettings } from '../settings/settings';
import {
  DraftBuilder,
  type ImportDraft,
  ImportError,
  keyOf,
  objectOr,
  parseJson,
  toId,
} from './draft';

interface OrConnection {
  provider?: unknown;
  authType?: unknown;
  name?: unknown;
  apiKey?: unknown;
  isActive?: unknown;
  priority?: unknown;
  defaultModel?: unknown;
}

interface OrNode {
  id?: unknown;
  type?: unknown;
  name?: unknown;
  prefix?: unknown;
  apiType?: unknown;
  baseUrl?: unknown;
}

/** OmniRoute provider ids whose preset has another id here. */
const ALIASES: Record<string, string> = {
  glm: 'zhipu',
  kimi: 'moonshot',
  'azure-openai': 'azure-openai',
  github: 'github-models',
};

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** The provider a connection belongs to, from a custom node or a preset; or why not. */
function providerFor(
  provider: string,
  nodes: Map<string, OrNode>,
): Omit<ProviderConfig, 'connections' | 'models'> | string {
  const node = nodes.get(provider);
  if (node) {
    const baseUrl = str(node.baseUrl);
    if (!baseUrl) return `custom provider ${provider} has no baseUrl`;
    const format =
      node.type === 'anthropic-compatible'
        ? 'anthropic'
        : node.apiType === 'responses'
          ? 'openai'
          : 'openai-chat';
    return {
      id: toId(str(node.prefix) ?? str(node.name) ?? provider),
      format,
      baseUrl,
      authClass: 'api_key',
    };
  }
  const preset = findPreset(ALIASES[provider] ?? provider);
  if (!preset) return `provider "${provider}" has no Breakwater preset; add it by hand`;
  return {
    id: preset.id,
    format: preset.format,
    baseUrl: preset.baseUrl,
    authClass: preset.authClass,
  };
}

export function importOmniroute(text: string): ImportDraft {
  const root = objectOr(parseJson(text));
  if (!root || !Array.isArray(root.providerConnections))
    throw new ImportError('no "providerConnections" list: not an OmniRoute settings export', 1);
  const nodes = new Map<string, OrNode>();
  for (const n of Array.isArray(root.providerNodes) ? (root.providerNodes as OrNode[]) : [])
    if (str(n?.id)) nodes.set(str(n.id)!, n);
  const draft = new DraftBuilder();
  // OmniRoute's provider id (and a node's prefix) → ours, for the combos' "provider/model".
  const ids = new Map<string, string>();
  const connections: OrConnection[] = [];
  for (const [i, c] of (root.providerConnections as unknown[]).entries())
    if (objectOr(c)) connections.push(c as OrConnection);
    else draft.skip(`providerConnections[${i}]`, 'not an object');
  connections.sort((a, b) => (Number(a.priority) || 0) - (Number(b.priority) || 0));
  for (const [i, c] of connections.entries()) {
    const provider = str(c.provider) ?? '?';
    const item = `providerConnections ${provider}/${str(c.name) ?? i + 1}`;
    if (c.authType !== 'apikey') {
      draft.skip(item, 'an OAuth account: sign in again in Breakwater');
      continue;
    }
    const key = keyOf(c.apiKey);
    if (!key.apiKey && !key.apiKeyEnv) {
      draft.skip(item, 'no API key');
      continue;
    }
    const target = providerFor(provider, nodes);
    if (typeof target === 'string') {
      draft.skip(item, target);
      continue;
    }
    const existing = draft.provider(ids.get(provider) ?? '');
    const connection = { ...key, ...(c.isActive === false ? { enabled: false } : {}) };
    if (existing) {
      existing.connections.push({
        id: `${existing.id}-${existing.connections.length + 1}`,
        ...connection,
      });
    } else {
      const id = draft.freeId(target.id);
      const preset = findPreset(target.id);
      const models = preset && target.baseUrl === preset.baseUrl ? [...preset.models] : [];
      if (
        !draft.addProvider(
          { ...target, id, connections: [{ id: `${id}-1`, ...connection }], models },
          item,
        )
      )
        continue;
      ids.set(provider, id);
      const node = nodes.get(provider);
      if (node && str(node.prefix)) ids.set(str(node.prefix)!, id);
    }
    const model = str(c.defaultModel);
    if (model) draft.addModel(ids.get(provider)!, model);
  }
  for (const raw of Array.isArray(root.combos) ? (root.combos as Record<string, unknown>[]) : []) {
    const name = str(raw?.name);
    if (!name) continue;
    const targets: ComboTarget[] = [];
    for (const step of Array.isArray(raw.models) ? raw.models : []) {
      const s =
        typeof step === 'string'
          ? { model: step }
          : (step as { model?: unknown; weight?: unknown; kind?: unknown });
      const ref = str(s?.model);
      if (s?.kind === 'combo-ref' || !ref) {
        draft.skip(`combo ${name} step`, 'a step that calls another combo is not a target here');
        continue;
      }
      const slash = ref.indexOf('/');
      const id = slash > 0 ? ids.get(ref.slice(0, slash)) : undefined;
      if (!id) {
        draft.skip(`combo ${name} target ${ref}`, 'its provider was not imported');
        continue;
      }
      draft.addModel(id, ref.slice(slash + 1));
      const target = `${id}/${ref.slice(slash + 1)}`;
      targets.push(typeof s.weight === 'number' ? { target, weight: s.weight } : target);
    }
    const wanted = str(raw.strategy) ?? 'priority';
    const known =
      STRATEGIES.includes(wanted as ComboStrategy) &&
      !MULTI_CALL_STRATEGIES.includes(wanted as ComboStrategy);
    if (!known)
      draft.skip(
        `combo ${name} strategy ${wanted}`,
        'needs options the import cannot carry (or is unknown); imported as priority',
      );
    if (raw.config && typeof raw.config === 'object' && Object.keys(raw.config).length > 0)
      draft.skip(`combo ${name} config`, 'per-combo options are set in Breakwater by strategy');
    if (targets.length > 0)
      draft.addCombo(
        { name, strategy: known ? (wanted as ComboStrategy) : 'priority', targets },
        `combo ${name}`,
      );
    else draft.skip(`combo ${name}`, 'no target left to route to');
  }
  const own = objectOr(root.settings);
  const settings = own ? flattenSettings(own) : {};
  let other = 0;
  for (const [key, value] of Object.entries(settings)) {
    const ours = [key, key.replace(/^resilience\./, '')].find((k) => findSetting(k));
    if (ours) draft.settings[ours] = value;
    else other++;
  }
  if (other > 0) draft.skip(`${other} other setting(s)`, 'no Breakwater equivalent');
  if (Array.isArray(root.apiKeys) && root.apiKeys.length > 0)
    draft.skip(
      `${root.apiKeys.length} API key(s)`,
      'gateway keys are created in Breakwater (never copied)',
    );
  return draft.build();
}
