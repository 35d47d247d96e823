import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConnection } from '../../src/main/engine/admin/connection-test';
import { presetList } from '../../src/main/engine/admin/setup';
import { checkPreset, loadPresets } from '../../src/main/engine/config/presets';
import { validateConfig } from '../../src/main/engine/config/validate';
import { detectProviders } from '../../src/main/engine/setup/detect';
import { configFromDetected } from '../../src/main/engine/setup/first-config';

describe('the provider catalog', () => {
  it('validates against the config schema: every preset is a provider a config file may hold', () => {
    const providers = loadPresets().map(({ name: _n, keyEnv, note: _note, ...p }) => ({
      ...p,
      connections: [{ id: `${p.id}-1`, ...(keyEnv ? { apiKeyEnv: keyEnv } : {}) }],
    }));
    expect(() => validateConfig({ providers })).not.toThrow();
  });

  it('covers the providers coding-agent users use most', () => {
    const ids = loadPresets().map((p) => p.id);
    for (const id of [
      'openai',
      'anthropic',
      'gemini',
      'openrouter',
      'deepseek',
      'groq',
      'mistral',
      'xai',
      'together',
      'fireworks',
      'cerebras',
      'moonshot',
      'dashscope',
      'zhipu',
      'minimax',
      'perplexity',
      'azure-openai',
      'bedrock',
      'github-models',
      'ollama',
      'lmstudio',
      'llamacpp',
      'vllm',
    ])
      expect(ids).toContain(id);
    const ports = loadPresets()
      .filter((p) => p.authClass === 'local')
      .map((p) => new URL(p.baseUrl).port);
    expect(ports.sort()).toEqual(['11434', '1234', '8000', '8080']);
  });

  it('refuses an entry the config schema refuses, naming the field', () => {
    expect(() =>
      checkPreset(
        {
          id: 'x',
          name: 'X',
          format: 'openai',
          baseUrl: 'ftp://x',
          authClass: 'api_key',
          keyEnv: 'X_KEY',
          models: [],
        },
        'presets[0]',
      ),
    ).toThrow(/presets\[0\]\.baseUrl/);
    expect(() =>
      checkPreset(
        {
          id: 'x',
          name: 'X',
          format: 'openai',
          baseUrl: 'https://x',
          authClass: 'api_key',
          models: [],
        },
        'presets[0]',
      ),
    ).toThrow(/keyEnv/);
  });

  it('GET /api/presets takes context windows and prices from the model table', () => {
    const openai = presetList().presets.find((p) => p.id === 'openai')!;
    const gpt5 = openai.models.find((m) => m.id === 'gpt-5')!;
    expect(gpt5.contextWindow).toBeGreaterThan(0);
    expect(gpt5.price?.input).toBeGreaterThan(0);
    expect(openai).toMatchObject({
      format: 'openai',
      authClass: 'api_key',
      keyEnv: 'OPENAI_API_KEY',
    });
  });
});

describe('detection of keys and local servers', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            object: 'list',
            data: [{ id: 'qwen2.5-coder:7b' }, { id: 'llama3.1:8b' }],
          }),
        );
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  // Every other local preset points at a port nothing listens on (this server's, without /v1).
  const closed = (except: string) =>
    Object.fromEntries(
      loadPresets()
        .filter((p) => p.authClass === 'local' && p.id !== except)
        .map((p) => [p.id, `${url}/none`]),
    );

  it("finds key variables and a local server, with the server's own models, and reports names only", async () => {
    const found = await detectProviders({
      presets: loadPresets(),
      env: { OPENAI_API_KEY: 'sk-test-secret', GROQ_API_KEY: '  ', DEEPSEEK_API_KEY: 'sk-ds' },
      localUrls: { ...closed('ollama'), ollama: url },
    });
    expect(found.map((d) => [d.preset, d.source])).toEqual([
      ['openai', 'env'],
      ['deepseek', 'env'],
      ['ollama', 'local'],
    ]);
    expect(found.find((d) => d.preset === 'ollama')!.models).toEqual([
      'qwen2.5-coder:7b',
      'llama3.1:8b',
    ]);
    expect(JSON.stringify(found)).not.toContain('sk-test-secret');
  });

  it("the connection test lists the provider's live models, for picking instead of typing", async () => {
    const result = await testConnection({
      provider: { id: 'ollama', format: 'openai-chat', baseUrl: url, authClass: 'local' },
      connection: { id: 'ollama-1', apiKeyEnv: null },
      secret: null,
    });
    expect(result).toMatchObject({ ok: true, models: ['qwen2.5-coder:7b', 'llama3.1:8b'] });
    expect(result.message).toMatch(/2 models listed/);
  });

  it('finds nothing with no variables and no server answering', async () => {
    expect(
      await detectProviders({
        presets: loadPresets(),
        env: {},
        localUrls: closed(''),
        timeoutMs: 300,
      }),
    ).toEqual([]);
  });

  it('the config built from it references the variable, never the key, and starts with a combo', async () => {
    const found = await detectProviders({
      presets: loadPresets(),
      env: { ANTHROPIC_API_KEY: 'sk-ant-secret' },
      localUrls: { ...closed('lmstudio'), lmstudio: url },
    });
    const config = validateConfig(configFromDetected(found, loadPresets()));
    expect(config.providers!.map((p) => p.connections[0])).toEqual([
      { id: 'anthropic-1', apiKeyEnv: 'ANTHROPIC_API_KEY' },
      { id: 'lmstudio-1' },
    ]);
    expect(config.combos).toEqual([
      {
        name: 'coder',
        strategy: 'priority',
        targets: ['anthropic/claude-sonnet-4-5', 'lmstudio/qwen2.5-coder:7b'],
      },
    ]);
    expect(JSON.stringify(config)).not.toContain('sk-ant-secret');
  });
});
