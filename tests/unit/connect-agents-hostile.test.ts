import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENTS, AgentConfigError, connectAgent, undoAgent } from '../../src/main/engine/agents';

// What a careless user or a hostile value does to the agent config writers (issue 27 item 6).
const KEY = 'bw-key-secret-123';
const TARGET = { origin: 'http://127.0.0.1:4000', apiKey: KEY, models: ['coder'] };

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bw-connect-hostile-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function put(rel: string, text: string, mode = 0o644): string {
  const path = join(home, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('undo takes out only what connect put in', () => {
  it('keeps a JSON block the user added after connect (Claude Code)', () => {
    const path = put(
      '.claude/settings.json',
      '{\n  "theme": "dark",\n  "env": { "DEBUG": "1" }\n}\n',
    );
    connectAgent('claude-code', home, TARGET);
    const edited = JSON.parse(readFileSync(path, 'utf8'));
    edited.mcpServers = { docs: { command: 'docs-mcp' } };
    writeFileSync(path, JSON.stringify(edited, null, 2));
    expect(undoAgent('claude-code', home).restored).toEqual([path]);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      theme: 'dark',
      env: { DEBUG: '1' },
      mcpServers: { docs: { command: 'docs-mcp' } },
    });
    expect(readdirSync(dirname(path)).filter((f) => f.includes('breakwater'))).toEqual([]);
  });

  it('keeps a TOML table added after connect and gives back the values connect replaced (Codex)', () => {
    const path = put(
      '.codex/config.toml',
      '# mine\nmodel = "o3"\n\n[model_providers.breakwater]\nname = "old"\nbase_url = "http://old/v1"\n',
    );
    connectAgent('codex', home, TARGET);
    writeFileSync(path, `${readFileSync(path, 'utf8')}\n[mcp_servers.new]\ncommand = "new-mcp"\n`);
    undoAgent('codex', home);
    const text = readFileSync(path, 'utf8');
    expect(parseToml(text)).toEqual({
      model: 'o3',
      model_providers: { breakwater: { name: 'old', base_url: 'http://old/v1' } },
      mcp_servers: { new: { command: 'new-mcp' } },
    });
    expect(text).toContain('# mine');
  });

  it('keeps a file connect created when the user has since added to it, minus connect’s keys', () => {
    connectAgent('gemini-cli', home, TARGET);
    const env = join(home, '.gemini', '.env');
    writeFileSync(env, `${readFileSync(env, 'utf8')}MINE=1\n`);
    undoAgent('gemini-cli', home);
    expect(readFileSync(env, 'utf8')).toBe('MINE=1\n');
    expect(existsSync(join(home, '.gemini', 'settings.json'))).toBe(false);
  });
});

describe('a config file that is a symlink', () => {
  it('is written through to its target, and undo keeps the link', () => {
    const real = put('dotfiles/opencode.json', '{ "theme": "tokyonight" }\n');
    const link = join(home, '.config', 'opencode', 'opencode.json');
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(real, link);
    connectAgent('opencode', home, TARGET);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, 'utf8')).provider.breakwater).toBeDefined();
    undoAgent('opencode', home);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(real);
    expect(readFileSync(real, 'utf8')).toBe('{ "theme": "tokyonight" }\n');
  });
});

describe('writes are atomic', () => {
  it('replaces the file by a rename (a crash never leaves it half written) and leaves no temp file', () => {
    const path = put('.qwen/settings.json', '{"ui":{"theme":"GitHub"}}');
    const before = statSync(path).ino;
    connectAgent('qwen-code', home, TARGET);
    expect(statSync(path).ino).not.toBe(before);
    expect(readFileSync(`${path}.breakwater-backup`, 'utf8')).toBe('{"ui":{"theme":"GitHub"}}');
    expect(readdirSync(dirname(path)).filter((f) => f.includes('tmp'))).toEqual([]);
    const restored = statSync(path).ino;
    undoAgent('qwen-code', home);
    expect(statSync(path).ino).not.toBe(restored);
    expect(readFileSync(path, 'utf8')).toBe('{"ui":{"theme":"GitHub"}}');
  });
});

describe('the gateway key in a file others may read', () => {
  it('Codex and opencode name an environment variable instead, and the file keeps its mode', () => {
    const codex = put('.codex/config.toml', 'model = "o3"\n');
    const opencode = put('.config/opencode/opencode.json', '{}\n');
    connectAgent('codex', home, TARGET);
    connectAgent('opencode', home, TARGET);
    for (const path of [codex, opencode]) {
      expect(readFileSync(path, 'utf8')).not.toContain(KEY);
      expect(modeOf(path)).toBe(0o644);
    }
    const c = parseToml(readFileSync(codex, 'utf8')) as {
      model_providers: { breakwater: Record<string, string> };
    };
    expect(c.model_providers.breakwater.env_key).toBe('BREAKWATER_API_KEY');
    expect(c.model_providers.breakwater.experimental_bearer_token).toBeUndefined();
    const o = JSON.parse(readFileSync(opencode, 'utf8'));
    expect(o.provider.breakwater.options.apiKey).toBe('{env:BREAKWATER_API_KEY}');
    expect(AGENTS.codex.env?.(TARGET)).toEqual({ BREAKWATER_API_KEY: KEY });
    expect(AGENTS.opencode.env?.(TARGET)).toEqual({ BREAKWATER_API_KEY: KEY });
  });

  it('the placeholder of a gateway without keys is no secret: written as it is, nothing to export', () => {
    const local = { ...TARGET, apiKey: 'breakwater-local' };
    connectAgent('opencode', home, local);
    const o = JSON.parse(readFileSync(join(home, '.config/opencode/opencode.json'), 'utf8'));
    expect(o.provider.breakwater.options.apiKey).toBe('breakwater-local');
    expect(AGENTS.opencode.env?.(local) ?? {}).toEqual({});
  });

  it('an agent without such a form gets its file made readable by its owner only', () => {
    const path = put('.claude/settings.json', '{}\n');
    connectAgent('claude-code', home, TARGET);
    expect(readFileSync(path, 'utf8')).toContain(KEY);
    expect(modeOf(path)).toBe(0o600);
  });
});

describe('a key with a line break', () => {
  it('is refused before anything is written (it would add variables to ~/.gemini/.env)', () => {
    const evil = { ...TARGET, apiKey: 'k\nNODE_OPTIONS=--require=/tmp/x.js' };
    let err: unknown;
    try {
      connectAgent('gemini-cli', home, evil);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AgentConfigError);
    expect((err as Error).message).not.toContain('NODE_OPTIONS');
    expect(existsSync(join(home, '.gemini'))).toBe(false);
  });
});

describe('where each agent keeps its config', () => {
  it('honours CODEX_HOME, XDG_CONFIG_HOME and CLAUDE_CONFIG_DIR', () => {
    const env = {
      CODEX_HOME: join(home, 'codex-home'),
      XDG_CONFIG_HOME: join(home, 'xdg'),
      CLAUDE_CONFIG_DIR: join(home, 'claude-dir'),
    };
    const expected = {
      codex: join(home, 'codex-home', 'config.toml'),
      opencode: join(home, 'xdg', 'opencode', 'opencode.json'),
      'claude-code': join(home, 'claude-dir', 'settings.json'),
    } as const;
    for (const [agent, path] of Object.entries(expected) as [keyof typeof expected, string][]) {
      expect(connectAgent(agent, home, TARGET, env).written).toEqual([path]);
      expect(undoAgent(agent, home, env).removed).toEqual([path]);
    }
    expect(existsSync(join(home, '.codex'))).toBe(false);
    expect(existsSync(join(home, '.config'))).toBe(false);
    expect(existsSync(join(home, '.claude'))).toBe(false);
  });
});

describe('a syntax error in an agent file', () => {
  it('names the line, never the text around it (which may be a key)', () => {
    put(
      '.qwen/settings.json',
      '{\n  "security": { "auth": { "apiKey": sk-user-secret-xyz } }\n}\n',
    );
    let message = '';
    try {
      connectAgent('qwen-code', home, TARGET);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/not valid JSON.*line 2/);
    expect(message).not.toMatch(/sk-|secret|xyz/);
  });
});
