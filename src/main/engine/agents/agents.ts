// The five agents `breakwater connect` sets up: which files each reads and what goes in them.
// Pure: a plan is computed from the gateway's address, key and models; files.ts applies it.
import { join } from 'node:path';
import type { AgentId } from '../../../shared/contract';
import { editDotenv, editJson, editToml } from './edits';

export type { AgentId };

export const AGENT_IDS: readonly AgentId[] = [
  'claude-code',
  'codex',
  'opencode',
  'qwen-code',
  'gemini-cli',
];

/** What an agent is pointed at. */
export interface ConnectTarget {
  /** The gateway's origin, `http://127.0.0.1:4000` (no path). */
  origin: string;
  /** A gateway API key; any text when the gateway has none (loopback only). */
  apiKey: string;
  /** The model names to offer, combos first; the first is the default. */
  models: readonly string[];
}

/** One file of an agent's config and how connect changes its text (null: absent). */
export interface FileEdit {
  path: string;
  edit(text: string | null): string;
}

export interface AgentSpec {
  id: AgentId;
  label: string;
  files(home: string, t: ConnectTarget): FileEdit[];
  /** Variables the agent reads only from the environment: connect prints them for the shell. */
  env?(t: ConnectTarget): Record<string, string>;
}

const PROVIDER = 'breakwater';

function model(t: ConnectTarget): string | undefined {
  return t.models[0];
}

/** Claude Code: `~/.claude/settings.json` env; it appends `/v1/messages` to the base URL. */
const claudeCode: AgentSpec = {
  id: 'claude-code',
  label: 'Claude Code',
  files: (home, t) => {
    const path = join(home, '.claude', 'settings.json');
    return [
      {
        path,
        edit: (text) =>
          editJson(path, text, {
            'env.ANTHROPIC_BASE_URL': t.origin,
            'env.ANTHROPIC_AUTH_TOKEN': t.apiKey,
            'env.ANTHROPIC_MODEL': model(t),
            // Background work (titles, summaries) asks for a Haiku; the same model serves it.
            'env.ANTHROPIC_DEFAULT_HAIKU_MODEL': model(t),
          }),
      },
    ];
  },
};

/** Codex CLI: `~/.codex/config.toml`, a Responses provider (`wire_api = "chat"` is gone). */
const codex: AgentSpec = {
  id: 'codex',
  label: 'Codex CLI',
  files: (home, t) => {
    const path = join(home, '.codex', 'config.toml');
    const top: Record<string, string> = { model_provider: PROVIDER };
    const m = model(t);
    if (m) top.model = m;
    return [
      {
        path,
        edit: (text) =>
          editToml(path, text, top, {
            name: `model_providers.${PROVIDER}`,
            values: {
              name: 'Breakwater',
              base_url: `${t.origin}/v1`,
              wire_api: 'responses',
              experimental_bearer_token: t.apiKey,
            },
          }),
      },
    ];
  },
};

/** opencode: `~/.config/opencode/opencode.json`, a provider of the bundled OpenAI-compatible SDK. */
const opencode: AgentSpec = {
  id: 'opencode',
  label: 'opencode',
  files: (home, t) => {
    const path = join(home, '.config', 'opencode', 'opencode.json');
    const m = model(t);
    return [
      {
        path,
        edit: (text) =>
          editJson(path, text, {
            [`provider.${PROVIDER}`]: {
              npm: '@ai-sdk/openai-compatible',
              name: 'Breakwater',
              options: { baseURL: `${t.origin}/v1`, apiKey: t.apiKey },
              models: Object.fromEntries(t.models.map((name) => [name, { name }])),
            },
            model: m ? `${PROVIDER}/${m}` : undefined,
          }),
      },
    ];
  },
};

/** Qwen Code: `~/.qwen/settings.json`, its OpenAI (Chat Completions) auth with our base URL. */
const qwenCode: AgentSpec = {
  id: 'qwen-code',
  label: 'Qwen Code',
  files: (home, t) => {
    const path = join(home, '.qwen', 'settings.json');
    return [
      {
        path,
        edit: (text) =>
          editJson(path, text, {
            'security.auth.selectedType': 'openai',
            'security.auth.apiKey': t.apiKey,
            'security.auth.baseUrl': `${t.origin}/v1`,
            'model.name': model(t),
          }),
      },
    ];
  },
};

/**
 * Gemini CLI: the base URL is read only from the environment (`GOOGLE_GEMINI_BASE_URL`); it
 * loads `~/.gemini/.env` in trusted folders only, so the lines are printed for the shell too.
 * The auth type and model go in `~/.gemini/settings.json`.
 */
const geminiEnv = (t: ConnectTarget) => ({
  GEMINI_API_KEY: t.apiKey,
  GOOGLE_GEMINI_BASE_URL: t.origin,
});

const geminiCli: AgentSpec = {
  id: 'gemini-cli',
  label: 'Gemini CLI',
  env: geminiEnv,
  files: (home, t) => {
    const env = join(home, '.gemini', '.env');
    const settings = join(home, '.gemini', 'settings.json');
    return [
      {
        path: env,
        edit: (text) => editDotenv(env, text, geminiEnv(t)),
      },
      {
        path: settings,
        edit: (text) =>
          editJson(settings, text, {
            'security.auth.selectedType': 'gemini-api-key',
            'model.name': model(t),
          }),
      },
    ];
  },
};

export const AGENTS: Record<AgentId, AgentSpec> = {
  'claude-code': claudeCode,
  codex,
  opencode,
  'qwen-code': qwenCode,
  'gemini-cli': geminiCli,
};

/**
 * The gateway key an agent is given: the one chosen, else `$BREAKWATER_API_KEY`, else a
 * placeholder, which a gateway without keys accepts from this machine.
 */
export function agentKey(chosen: string | undefined, env: NodeJS.ProcessEnv): string {
  return chosen ?? env.BREAKWATER_API_KEY ?? 'breakwater-local';
}

export const isAgentId = (s: string): s is AgentId => (AGENT_IDS as readonly string[]).includes(s);
