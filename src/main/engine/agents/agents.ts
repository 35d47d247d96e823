// The five agents `breakwater connect` sets up: which files each reads and what goes in them.
// Pure: a plan is computed from the gateway's address, key and models; files.ts applies it.
import { join } from 'node:path';
import type { AgentId } from '../../../shared/contract';
import { dotenvFile, type FileEdit, jsonFile, tomlFile } from './file-edit';

export type { AgentId, FileEdit };

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
  /** Claude Code: also make `breakwater statusline` its status line (never without asking). */
  statusLine?: boolean;
}

export interface AgentSpec {
  id: AgentId;
  label: string;
  /** The files, in `home` unless the agent's own variable (`CODEX_HOME`, …) in `env` says where. */
  files(home: string, t: ConnectTarget, env?: NodeJS.ProcessEnv): FileEdit[];
  /** Variables the agent reads only from the environment: connect prints them for the shell. */
  env?(t: ConnectTarget): Record<string, string>;
}

const PROVIDER = 'breakwater';

/** The key a gateway without keys accepts from this machine: no secret, so written as it is. */
export const PLACEHOLDER_KEY = 'breakwater-local';

/**
 * The variable an agent with an env-reference form (Codex `env_key`, opencode `{env:VAR}`) reads
 * the gateway key from, so the key itself never sits in a file others may read.
 */
export const KEY_VAR = 'BREAKWATER_API_KEY';

const isSecret = (t: ConnectTarget) => t.apiKey !== PLACEHOLDER_KEY;

/** What the user exports for an agent that reads the key from KEY_VAR (nothing for the placeholder). */
const keyEnv = (t: ConnectTarget): Record<string, string> =>
  isSecret(t) ? { [KEY_VAR]: t.apiKey } : {};

/** `env[name]` when set, else `fallback`: where an agent's config directory is. */
const dirOf = (env: NodeJS.ProcessEnv | undefined, name: string, fallback: string) =>
  env?.[name]?.trim() ? env[name]!.trim() : fallback;

function model(t: ConnectTarget): string | undefined {
  return t.models[0];
}

/** Claude Code's `statusLine` setting that runs `breakwater statusline` after each turn. */
export const STATUS_LINE = { type: 'command', command: 'breakwater statusline' } as const;

/** Claude Code: `$CLAUDE_CONFIG_DIR/settings.json` env; it appends `/v1/messages` to the base URL. */
const claudeCode: AgentSpec = {
  id: 'claude-code',
  label: 'Claude Code',
  files: (home, t, env) => [
    jsonFile(
      join(dirOf(env, 'CLAUDE_CONFIG_DIR', join(home, '.claude')), 'settings.json'),
      {
        'env.ANTHROPIC_BASE_URL': t.origin,
        'env.ANTHROPIC_AUTH_TOKEN': t.apiKey,
        'env.ANTHROPIC_MODEL': model(t),
        // Background work (titles, summaries) asks for a Haiku; the same model serves it.
        'env.ANTHROPIC_DEFAULT_HAIKU_MODEL': model(t),
      },
      // Without the flag a status line the user has is theirs: connect leaves it alone.
      t.statusLine ? { statusLine: STATUS_LINE } : {},
    ),
  ],
};

/**
 * Codex CLI: `$CODEX_HOME/config.toml`, a Responses provider (`wire_api = "chat"` is gone) that
 * reads the key from KEY_VAR (`env_key`).
 */
const codex: AgentSpec = {
  id: 'codex',
  label: 'Codex CLI',
  env: keyEnv,
  files: (home, t, env) => {
    const top: Record<string, string> = { model_provider: PROVIDER };
    const m = model(t);
    if (m) top.model = m;
    return [
      tomlFile(
        join(dirOf(env, 'CODEX_HOME', join(home, '.codex')), 'config.toml'),
        ['model_provider', 'model'],
        top,
        {
          name: `model_providers.${PROVIDER}`,
          values: {
            name: 'Breakwater',
            base_url: `${t.origin}/v1`,
            wire_api: 'responses',
            ...(isSecret(t) ? { env_key: KEY_VAR } : { experimental_bearer_token: t.apiKey }),
          },
        },
      ),
    ];
  },
};

/**
 * opencode: `$XDG_CONFIG_HOME/opencode/opencode.json`, a provider of the bundled
 * OpenAI-compatible SDK whose key is opencode's `{env:VAR}` reference to KEY_VAR.
 */
const opencode: AgentSpec = {
  id: 'opencode',
  label: 'opencode',
  env: keyEnv,
  files: (home, t, env) => {
    const m = model(t);
    const config = dirOf(env, 'XDG_CONFIG_HOME', join(home, '.config'));
    return [
      jsonFile(join(config, 'opencode', 'opencode.json'), {
        [`provider.${PROVIDER}`]: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Breakwater',
          options: {
            baseURL: `${t.origin}/v1`,
            apiKey: isSecret(t) ? `{env:${KEY_VAR}}` : t.apiKey,
          },
          models: Object.fromEntries(t.models.map((name) => [name, { name }])),
        },
        model: m ? `${PROVIDER}/${m}` : undefined,
      }),
    ];
  },
};

/** Qwen Code: `~/.qwen/settings.json`, its OpenAI (Chat Completions) auth with our base URL. */
const qwenCode: AgentSpec = {
  id: 'qwen-code',
  label: 'Qwen Code',
  files: (home, t) => [
    jsonFile(join(home, '.qwen', 'settings.json'), {
      'security.auth.selectedType': 'openai',
      'security.auth.apiKey': t.apiKey,
      'security.auth.baseUrl': `${t.origin}/v1`,
      'model.name': model(t),
    }),
  ],
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
  files: (home, t) => [
    dotenvFile(join(home, '.gemini', '.env'), geminiEnv(t)),
    jsonFile(join(home, '.gemini', 'settings.json'), {
      'security.auth.selectedType': 'gemini-api-key',
      'model.name': model(t),
    }),
  ],
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
  return chosen ?? env[KEY_VAR] ?? PLACEHOLDER_KEY;
}

export const isAgentId = (s: string): s is AgentId => (AGENT_IDS as readonly string[]).includes(s);
