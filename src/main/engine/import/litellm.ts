// LiteLLM proxy's `config.yaml`: `model_list` (a `model_name` clients ask for, and
// `litellm_params` with `<provider>/<model>`, `api_base`, `api_key`, `rpm`) and the fallbacks of
// `router_settings` / `litellm_settings`. Deployments of one provider and base URL become
// connections of one provider; each `model_name` becomes a combo over its deployments, followed
// by its fallbacks' deployments.

import type { ComboStrategy, ConnectionConfig } from '../../../shared/contract';
import { findPreset } from '../config/presets';
import { yaml } from '../lazy-module';
import {
  checkBrackets,
  checkDepth,
  DraftBuilder,
  type ImportDraft,
  ImportError,
  keyOf,
  objectOr,
} from './draft';

/** LiteLLM provider prefixes → our presets. */
const PREFIXES: Record<string, string> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gemini',
  openrouter: 'openrouter',
  deepseek: 'deepseek',
  groq: 'groq',
  mistral: 'mistral',
  xai: 'xai',
  together_ai: 'together',
  fireworks_ai: 'fireworks',
  cerebras: 'cerebras',
  moonshot: 'moonshot',
  dashscope: 'dashscope',
  zai: 'zhipu',
  minimax: 'minimax',
  perplexity: 'perplexity',
  azure: 'azure-openai',
  github: 'github-models',
  ollama: 'ollama',
  ollama_chat: 'ollama',
  lm_studio: 'lmstudio',
  hosted_vllm: 'vllm',
};

const STRATEGIES: Record<string, ComboStrategy> = {
  'simple-shuffle': 'random',
  'least-busy': 'least-used',
  'usage-based-routing': 'least-used',
  'usage-based-routing-v2': 'least-used',
  'latency-based-routing': 'auto',
  'cost-based-routing': 'cost-optimized',
};

interface Deployment {
  model_name?: unknown;
  litellm_params?: Record<string, unknown>;
}

/** The base URL of a deployment: its own `api_base` in the shape our format expects, or the preset's. */
function baseUrlOf(preset: string, apiBase: unknown, defaultUrl: string): string {
  if (typeof apiBase !== 'string' || apiBase.trim() === '') return defaultUrl;
  const base = apiBase.trim().replace(/\/+$/, '');
  if (preset === 'azure-openai') return base.endsWith('/openai/v1') ? base : `${base}/openai/v1`;
  if (['ollama', 'lmstudio', 'vllm'].includes(preset) && !base.endsWith('/v1')) return `${base}/v1`;
  return base;
}

function connectionLimits(params: Record<string, unknown>): Partial<ConnectionConfig> {
  const out: Partial<ConnectionConfig> = {};
  if (typeof params.rpm === 'number' && Number.isInteger(params.rpm))
    out.rateLimit = { requestsPerMinute: params.rpm };
  if (typeof params.max_parallel_requests === 'number')
    out.maxConcurrent = params.max_parallel_requests;
  return out;
}

function sameKey(a: ConnectionConfig, b: Partial<ConnectionConfig>): boolean {
  return a.apiKey === b.apiKey && a.apiKeyEnv === b.apiKeyEnv;
}

/** `[{ "gpt-4o": ["claude"] }]` → gpt-4o → [claude]. */
function fallbacksOf(...sources: unknown[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const list of sources) {
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      if (!entry || typeof entry !== 'object') continue;
      for (const [name, to] of Object.entries(entry as Record<string, unknown>))
        if (Array.isArray(to))
          out.set(
            name,
            to.filter((t): t is string => typeof t === 'string'),
          );
    }
  }
  return out;
}

/** The file as plain data: a syntax error names its line, an alias bomb is refused unexpanded. */
function readYaml(text: string): unknown {
  checkBrackets(text);
  const doc = yaml().parseDocument(text);
  const error = doc.errors[0];
  // The parser's message may quote the token at fault (a key, say): keep only its kind.
  const kind = (message: string) =>
    message
      .split('\n')[0]!
      .split(/["']/)[0]!
      .replace(/\s*at line \d+, column \d+:?$/, '')
      .replace(/[\s:]+$/, '');
  if (error)
    throw new ImportError(
      `not valid YAML: ${kind(error.message)}`,
      error.linePos?.[0].line ?? null,
    );
  let root: unknown;
  try {
    root = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    if (err instanceof ReferenceError)
      throw new ImportError(
        /excessive alias/i.test(err.message)
          ? 'its YAML aliases expand too far (an alias bomb): not a config file'
          : 'a YAML alias names no anchor set before it',
        1,
      );
    throw err;
  }
  checkDepth(root);
  return root;
}

export function importLitellm(text: string): ImportDraft {
  const root = objectOr(readYaml(text));
  if (!root || !Array.isArray(root.model_list)) {
    const at = text.search(/^model_list\s*:/m);
    throw new ImportError(
      'no "model_list" list: not a LiteLLM proxy config.yaml',
      at >= 0 ? text.slice(0, at).split('\n').length : 1,
    );
  }
  const draft = new DraftBuilder();
  const byBase = new Map<string, string>();
  const groups = new Map<string, string[]>();
  for (const [i, raw] of root.model_list.entries()) {
    const d = (objectOr(raw) ?? {}) as Deployment;
    const params = objectOr(d.litellm_params) ?? {};
    const name = typeof d.model_name === 'string' ? d.model_name : `model_list[${i}]`;
    const item = `model_list[${i}] ${name}`;
    const model = typeof params.model === 'string' ? params.model : '';
    const slash = model.indexOf('/');
    if (!model) {
      draft.skip(item, 'no litellm_params.model');
      continue;
    }
    const prefix =
      slash > 0
        ? model.slice(0, slash)
        : /^claude/.test(model)
          ? 'anthropic'
          : /^gemini/.test(model)
            ? 'gemini'
            : 'openai';
    const upstreamModel = slash > 0 ? model.slice(slash + 1) : model;
    const preset = findPreset(PREFIXES[prefix] ?? '');
    if (!preset) {
      draft.skip(
        item,
        `provider "${prefix}" has no Breakwater preset (it may need its own request signing); add it by hand if it has an OpenAI-compatible endpoint`,
      );
      continue;
    }
    if (preset.id === 'azure-openai' && typeof params.api_base !== 'string') {
      draft.skip(item, 'an Azure deployment needs its api_base');
      continue;
    }
    const baseUrl = baseUrlOf(preset.id, params.api_base, preset.baseUrl);
    const conn = { ...keyOf(params.api_key), ...connectionLimits(params) };
    if (typeof params.tpm === 'number')
      draft.skip(
        `${item} tpm`,
        'token-per-minute limits are set per gateway key (limits.tokensPerDay), not per deployment',
      );
    let id = byBase.get(`${preset.id} ${baseUrl}`);
    if (id === undefined) {
      id = draft.freeId(preset.id);
      const ok = draft.addProvider(
        {
          id,
          format: preset.format,
          baseUrl,
          authClass: preset.authClass,
          connections: [{ id: `${id}-1`, ...conn }],
          models: [upstreamModel],
        },
        item,
      );
      if (!ok) continue;
      byBase.set(`${preset.id} ${baseUrl}`, id);
    } else {
      const p = draft.provider(id)!;
      if (!p.connections.some((c) => sameKey(c, conn)))
        p.connections.push({ id: `${id}-${p.connections.length + 1}`, ...conn });
      draft.addModel(id, upstreamModel);
    }
    const targets = groups.get(name) ?? [];
    if (!targets.includes(`${id}/${upstreamModel}`)) targets.push(`${id}/${upstreamModel}`);
    groups.set(name, targets);
  }
  const router = objectOr(root.router_settings) ?? {};
  const litellm = objectOr(root.litellm_settings) ?? {};
  const fallbacks = fallbacksOf(
    router.fallbacks,
    litellm.fallbacks,
    router.context_window_fallbacks,
  );
  const routing =
    typeof router.routing_strategy === 'string' ? router.routing_strategy : 'simple-shuffle';
  for (const [name, own] of groups) {
    const after = (fallbacks.get(name) ?? []).flatMap((f) => groups.get(f) ?? []);
    const targets = [...own, ...after.filter((t) => !own.includes(t))];
    // Fallbacks are an order; spreading load over the group's own deployments is not.
    const strategy =
      after.length > 0 || own.length === 1 ? 'priority' : (STRATEGIES[routing] ?? 'random');
    if (name.includes('/') || /\s/.test(name)) {
      draft.skip(
        `model_name ${name}`,
        'a combo name has no "/" or spaces (a "/" names provider/model); its deployments are still reachable as provider/model',
      );
      continue;
    }
    draft.addCombo({ name, strategy, targets }, `model_name ${name}`);
  }
  if (typeof router.timeout === 'number' && router.timeout > 0)
    draft.settings['timeouts.totalMs'] = Math.round(router.timeout * 1000);
  for (const key of ['num_retries', 'allowed_fails', 'cooldown_time', 'retry_policy'])
    if (router[key] !== undefined)
      draft.skip(
        `router_settings.${key}`,
        'Breakwater fails over across targets and cools connections by its own resilience settings',
      );
  const general = objectOr(root.general_settings) ?? {};
  if (general.master_key !== undefined)
    draft.skip('general_settings.master_key', 'create gateway keys in Breakwater instead');
  return draft.build();
}
