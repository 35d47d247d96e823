import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AGENT_IDS,
  AGENTS,
  AgentConfigError,
  type AgentId,
  connectAgent,
  undoAgent,
} from '../../src/main/engine/agents';

const TARGET = { origin: 'http://127.0.0.1:4000', apiKey: 'bw-key-123', models: ['coder', 'fast'] };

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bw-connect-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

/** Existing files with the user's own settings (and, for TOML and dotenv, comments). */
const EXISTING: Record<AgentId, Record<string, string>> = {
  'claude-code': {
    '.claude/settings.json':
      '{\n    "theme": "dark",\n    "env": { "DEBUG": "1" },\n    "permissions": { "allow": ["Bash(ls)"] }\n}\n',
  },
  codex: {
    '.codex/config.toml':
      '# my codex settings\nmodel = "o3"\napproval_policy = "on-request"\n\n[model_providers.breakwater]\nname = "old"\nbase_url = "http://old/v1"\n\n[mcp_servers.docs]\ncommand = "docs-mcp" # keep me\n',
  },
  opencode: {
    '.config/opencode/opencode.json':
      '{\n  "$schema": "https://opencode.ai/config.json",\n  "theme": "tokyonight",\n  "provider": { "ollama": { "npm": "@ai-sdk/openai-compatible" } }\n}',
  },
  'qwen-code': {
    '.qwen/settings.json':
      '{"ui": {"theme": "GitHub"}, "security": {"auth": {"selectedType": "qwen-oauth"}}}',
  },
  'gemini-cli': {
    '.gemini/.env': '# keys\nexport OTHER=1\nGEMINI_API_KEY=old\n',
    '.gemini/settings.json': '{\n\t"general": { "vimMode": true }\n}\n',
  },
};

/** A file of each agent its parser rejects. */
const BROKEN: Record<AgentId, [string, string]> = {
  'claude-code': ['.claude/settings.json', '{"env": {'],
  codex: ['.codex/config.toml', 'model = "o3\n[broken'],
  opencode: ['.config/opencode/opencode.json', '// a comment\n{}'],
  'qwen-code': ['.qwen/settings.json', '[1, 2]'],
  'gemini-cli': ['.gemini/.env', 'GEMINI_API_KEY=x\nthis is not an assignment\n'],
};

function put(files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, rel)), { recursive: true });
    writeFileSync(join(home, rel), text);
  }
}

const read = (rel: string) => readFileSync(join(home, rel), 'utf8');
// biome-ignore lint/suspicious/noExplicitAny: the tests read config files of any shape.
type Loose = Record<string, any>;
const json = (rel: string) => JSON.parse(read(rel)) as Loose;

/** What each agent reads back, checked against the target. */
const CHECKS: Record<AgentId, () => void> = {
  'claude-code': () => {
    const s = json('.claude/settings.json');
    expect(s.env).toMatchObject({
      DEBUG: '1',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:4000',
      ANTHROPIC_AUTH_TOKEN: 'bw-key-123',
      ANTHROPIC_MODEL: 'coder',
    });
    expect(s.permissions).toEqual({ allow: ['Bash(ls)'] });
  },
  codex: () => {
    const text = read('.codex/config.toml');
    const c = parseToml(text) as Loose;
    expect(c).toMatchObject({
      model: 'coder',
      model_provider: 'breakwater',
      approval_policy: 'on-request',
    });
    expect(c.model_providers.breakwater).toEqual({
      name: 'Breakwater',
      base_url: 'http://127.0.0.1:4000/v1',
      wire_api: 'responses',
      env_key: 'BREAKWATER_API_KEY',
    });
    expect(c.mcp_servers.docs).toEqual({ command: 'docs-mcp' });
    expect(text).toContain('# my codex settings');
    expect(text).toContain('command = "docs-mcp" # keep me');
  },
  opencode: () => {
    const c = json('.config/opencode/opencode.json');
    expect(c.model).toBe('breakwater/coder');
    expect(c.theme).toBe('tokyonight');
    expect(c.provider.ollama).toEqual({ npm: '@ai-sdk/openai-compatible' });
    expect(c.provider.breakwater).toEqual({
      npm: '@ai-sdk/openai-compatible',
      name: 'Breakwater',
      options: { baseURL: 'http://127.0.0.1:4000/v1', apiKey: '{env:BREAKWATER_API_KEY}' },
      models: { coder: { name: 'coder' }, fast: { name: 'fast' } },
    });
  },
  'qwen-code': () => {
    const s = json('.qwen/settings.json');
    expect(s.security.auth).toEqual({
      selectedType: 'openai',
      apiKey: 'bw-key-123',
      baseUrl: 'http://127.0.0.1:4000/v1',
    });
    expect(s.model.name).toBe('coder');
    expect(s.ui).toEqual({ theme: 'GitHub' });
  },
  'gemini-cli': () => {
    expect(read('.gemini/.env')).toBe(
      '# keys\nexport OTHER=1\nGEMINI_API_KEY=bw-key-123\nGOOGLE_GEMINI_BASE_URL=http://127.0.0.1:4000\n',
    );
    expect(json('.gemini/settings.json')).toEqual({
      general: { vimMode: true },
      security: { auth: { selectedType: 'gemini-api-key' } },
      model: { name: 'coder' },
    });
  },
};

const files = (agent: AgentId) => AGENTS[agent].files(home, TARGET).map((f) => f.path);

describe.each(AGENT_IDS)('breakwater connect %s', (agent) => {
  it('writes its config over the existing settings; a second run changes nothing; undo restores the bytes', () => {
    put(EXISTING[agent]);
    const before = files(agent).map((p) => readFileSync(p));
    expect(connectAgent(agent, home, TARGET).written).toEqual(files(agent));
    CHECKS[agent]();
    const after = files(agent).map((p) => readFileSync(p, 'utf8'));
    // The backups of the files that existed, made by the first run, are kept and named.
    const backups = files(agent)
      .map((p) => `${p}.breakwater-backup`)
      .filter((p) => existsSync(p));
    expect(backups.length).toBeGreaterThan(0);
    expect(connectAgent(agent, home, TARGET)).toEqual({
      written: [],
      unchanged: files(agent),
      backups,
    });
    expect(files(agent).map((p) => readFileSync(p, 'utf8'))).toEqual(after);
    expect(undoAgent(agent, home).restored).toEqual(files(agent));
    expect(files(agent).map((p) => readFileSync(p))).toEqual(before);
    expect(readdirSync(dirname(files(agent)[0]!)).some((f) => f.includes('breakwater-'))).toBe(
      false,
    );
  });

  it('creates the files when there are none, and undo removes them again', () => {
    connectAgent(agent, home, TARGET);
    for (const p of files(agent)) expect(existsSync(p)).toBe(true);
    expect(undoAgent(agent, home).removed).toEqual(files(agent));
    for (const p of files(agent)) expect(existsSync(p)).toBe(false);
    expect(undoAgent(agent, home)).toEqual({ restored: [], removed: [] });
  });

  it('a file the agent could not read is refused, and nothing is written', () => {
    const [rel, text] = BROKEN[agent];
    put({ [rel]: text });
    expect(() => connectAgent(agent, home, TARGET)).toThrow(AgentConfigError);
    expect(read(rel)).toBe(text);
    const entries = files(agent).flatMap((p) =>
      existsSync(dirname(p)) ? readdirSync(dirname(p)) : [],
    );
    expect(entries.filter((f) => f.includes('breakwater-'))).toEqual([]);
    for (const p of files(agent)) if (!p.endsWith(rel)) expect(existsSync(p)).toBe(false);
  });
});

describe('Codex TOML edits that cannot be made line by line', () => {
  it('a provider table defined inline is refused rather than duplicated', () => {
    const text = 'model_providers = { breakwater = { name = "x" } }\n';
    put({ '.codex/config.toml': text });
    expect(() => connectAgent('codex', home, TARGET)).toThrow(
      /cannot set model_providers\.breakwater/,
    );
    expect(read('.codex/config.toml')).toBe(text);
  });
});
