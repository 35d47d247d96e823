import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/main/engine/config/validate';
import { draftReport, IMPORTERS, ImportError } from '../../src/main/engine/import';
import type { ImportTool } from '../../src/shared/contract';

const FIXTURES = join(__dirname, '../fixtures/import');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

function run(tool: ImportTool, file: string) {
  const draft = IMPORTERS[tool](fixture(file));
  // What an importer produces is a config the engine accepts as it is.
  expect(() => validateConfig(draft.config)).not.toThrow();
  const report = draftReport(tool, draft, true);
  // Secrets of the sample files all contain "secret"; none may reach a report.
  expect(JSON.stringify(report)).not.toMatch(/secret/i);
  const providers = Object.fromEntries((draft.config.providers ?? []).map((p) => [p.id, p]));
  const combos = Object.fromEntries((draft.config.combos ?? []).map((c) => [c.name, c]));
  return { draft, report, providers, combos };
}

function refusal(tool: ImportTool, text: string): ImportError {
  try {
    IMPORTERS[tool](text);
  } catch (err) {
    if (err instanceof ImportError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('claude-code-router config.json', () => {
  it('turns Providers into providers and each Router scenario into a combo', () => {
    const { providers, combos, draft } = run('claude-code-router', 'claude-code-router.json');
    expect(Object.keys(providers)).toEqual(['openrouter', 'deepseek', 'ollama', 'gemini']);
    expect(providers.openrouter).toMatchObject({
      format: 'openai-chat',
      baseUrl: 'https://openrouter.ai/api/v1',
    });
    expect(providers.deepseek!.connections).toEqual([
      { id: 'deepseek-1', apiKeyEnv: 'DEEPSEEK_API_KEY' },
    ]);
    expect(providers.gemini!.connections).toEqual([
      { id: 'gemini-1', apiKeyEnv: 'GEMINI_API_KEY' },
    ]);
    expect(providers.ollama).toMatchObject({
      authClass: 'local',
      baseUrl: 'http://localhost:11434/v1',
    });
    expect(combos.default!.targets).toEqual(['deepseek/deepseek-chat']);
    expect(combos.think!.targets).toEqual(['deepseek/deepseek-reasoner']);
    expect(combos.longContext!.targets).toEqual(['openrouter/google/gemini-2.5-pro-preview']);
    expect(draft.skipped.map((s) => s.item)).toEqual(
      expect.arrayContaining(['Providers[4] mystery', 'Router.longContextThreshold', 'APIKEY']),
    );
  });

  it('refuses a broken file with the line and the reason', () => {
    const e = refusal('claude-code-router', '{\n  "Providers": [\n    { "name": "x", }\n  ]\n}\n');
    expect(e.line).toBe(3);
    expect(e.message).toMatch(/^line 3: not valid JSON/);
    expect(refusal('claude-code-router', '{\n  "Router": {}\n}').message).toMatch(
      /no "Providers" array/,
    );
  });
});

describe('LiteLLM config.yaml', () => {
  it('turns model_list into providers, model_name into combos, and appends fallbacks', () => {
    const { providers, combos, draft } = run('litellm', 'litellm.yaml');
    expect(Object.keys(providers)).toEqual(['azure-openai', 'openai', 'anthropic', 'ollama']);
    expect(providers['azure-openai']).toMatchObject({
      baseUrl: 'https://my-endpoint-europe.openai.azure.com/openai/v1',
      connections: [
        {
          id: 'azure-openai-1',
          apiKeyEnv: 'AZURE_API_KEY_EU',
          rateLimit: { requestsPerMinute: 6 },
        },
      ],
    });
    expect(providers.anthropic!.connections[0]).toMatchObject({ maxConcurrent: 4 });
    expect(providers.ollama!.baseUrl).toBe('http://localhost:11434/v1');
    expect(combos['gpt-4o']).toEqual({
      name: 'gpt-4o',
      strategy: 'priority',
      targets: ['azure-openai/gpt-4o-eu', 'openai/gpt-4o', 'anthropic/claude-sonnet-4-5'],
    });
    expect(draft.settings).toEqual({ 'timeouts.totalMs': 30_000 });
    expect(draft.skipped.find((s) => s.item.includes('bedrock'))!.reason).toMatch(
      /no Breakwater preset/,
    );
    expect(draft.skipped.map((s) => s.item)).toContain('general_settings.master_key');
  });

  it('refuses a broken file with the line and the reason', () => {
    const e = refusal(
      'litellm',
      'model_list:\n  - model_name: a\n    litellm_params: {model: "x"\n  - model_name: b\n',
    );
    expect(e.line).not.toBeNull();
    expect(e.message).toMatch(/^line \d+: not valid YAML/);
    expect(refusal('litellm', 'general_settings:\n  master_key: k\n').message).toMatch(
      /no "model_list"/,
    );
  });
});

describe('CC Switch config.json', () => {
  it('imports Claude and Codex providers with keys, and a combo per app: current first, then the failover queue', () => {
    const { providers, combos, draft } = run('cc-switch', 'cc-switch.json');
    expect(Object.keys(providers)).toEqual(['zhipu-glm', 'kimi-k2', 'aihubmix']);
    expect(providers['zhipu-glm']).toMatchObject({
      format: 'anthropic',
      baseUrl: 'https://open.bigmodel.cn/api/anthropic',
      models: ['glm-4.6', 'glm-4.5-air'],
    });
    expect(providers['kimi-k2']!.connections).toEqual([
      { id: 'kimi-k2-1', apiKeyEnv: 'MOONSHOT_API_KEY' },
    ]);
    expect(providers.aihubmix).toMatchObject({
      format: 'openai',
      baseUrl: 'https://aihubmix.com/v1',
      models: ['gpt-5-codex'],
    });
    expect(combos.claude!.targets).toEqual(['kimi-k2/kimi-k2-0905-preview', 'zhipu-glm/glm-4.6']);
    expect(combos.codex!.targets).toEqual(['aihubmix/gpt-5-codex']);
    expect(draft.skipped[0]!.reason).toMatch(/Claude account sign-in/);
  });

  it('refuses a SQL export and a file of another kind, saying why', () => {
    expect(
      refusal('cc-switch', '-- CC Switch SQLite export\nCREATE TABLE providers (id TEXT);').message,
    ).toMatch(/^line 1: this is a SQL database export/);
    expect(refusal('cc-switch', '{ "mcp": {} }').message).toMatch(/not a CC Switch config/);
    expect(refusal('cc-switch', '{\n\n  "claude": [\n').line).toBe(4);
  });
});

describe('OmniRoute settings export', () => {
  it('imports API-key connections by priority, custom nodes, combos with their strategies, and resilience settings', () => {
    const { providers, combos, draft } = run('omniroute', 'omniroute.json');
    expect(Object.keys(providers)).toEqual(['openai', 'box', 'zhipu']);
    expect(providers.openai!.connections.map((c) => [c.id, c.enabled])).toEqual([
      ['openai-1', undefined],
      ['openai-2', false],
    ]);
    expect(providers.box).toMatchObject({
      format: 'openai-chat',
      baseUrl: 'http://192.168.1.20:8000/v1',
      models: ['qwen3-coder'],
    });
    expect(combos.coding!.targets).toEqual(['openai/gpt-5', 'zhipu/glm-4.6', 'box/qwen3-coder']);
    expect(combos.spread).toMatchObject({
      strategy: 'weighted',
      targets: [
        { target: 'openai/gpt-5-mini', weight: 3 },
        { target: 'box/qwen3-coder', weight: 1 },
      ],
    });
    expect(combos.fancy!.strategy).toBe('priority');
    expect(draft.settings).toEqual({
      'modelLockout.enabled': false,
      'routing.failoverBudgetMs': 90_000,
    });
    const skipped = Object.fromEntries(draft.skipped.map((s) => [s.item, s.reason]));
    expect(skipped['providerConnections claude/me@example.com']).toMatch(/OAuth/);
    expect(skipped['combo coding target cc/claude-sonnet-4-5']).toMatch(/not imported/);
    expect(skipped['combo fancy strategy fusion']).toMatch(/imported as priority/);
  });

  it('refuses a broken file with the line and the reason', () => {
    expect(
      refusal('omniroute', '{\n  "providerConnections": [\n    {"provider": "openai"\n  ]\n}').line,
    ).toBe(4);
    expect(refusal('omniroute', '{"settings": {}}').message).toMatch(
      /not an OmniRoute settings export/,
    );
  });
});
