import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/main/engine/config/load';
import {
  parseTargetRef,
  validateCombo,
  validateConfig,
  validateConnection,
  validateGateway,
  validateProvider,
} from '../../src/main/engine/config/validate';
import { rejection } from '../support/validation';

const GATEWAY_KEY = 'bw-agent-key-0123456789';

/** The example config of ARCHITECTURE.md ("Config file"), with the "…" key placeholders filled in. */
function exampleConfig(): Record<string, unknown> {
  return {
    gateway: {
      host: '127.0.0.1',
      port: 4141,
      apiKeys: [
        {
          name: 'agent',
          key: GATEWAY_KEY,
          scopes: ['lease:exclusive'],
          allowedConnections: ['openai-1'],
        },
      ],
    },
    providers: [
      {
        id: 'openai',
        format: 'openai',
        baseUrl: 'https://api.openai.com/v1',
        authClass: 'api_key',
        connections: [{ id: 'openai-1', apiKeyEnv: 'OPENAI_API_KEY', maxConcurrent: 2 }],
        models: ['gpt-5', 'gpt-5-mini'],
      },
      {
        id: 'anthropic',
        format: 'anthropic',
        baseUrl: 'https://api.anthropic.com',
        authClass: 'api_key',
        connections: [{ id: 'anthropic-1', apiKey: 'sk-ant-placeholder' }],
        models: ['claude-sonnet-4-5'],
      },
    ],
    combos: [
      {
        name: 'coder',
        strategy: 'priority',
        targets: ['anthropic/claude-sonnet-4-5', 'openai/gpt-5'],
      },
    ],
    resilience: { modelLockout: { enabled: true } },
  };
}

function provider(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'openai',
    format: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    connections: [{ id: 'openai-1', apiKeyEnv: 'OPENAI_API_KEY' }],
    models: ['gpt-5'],
    ...overrides,
  };
}

describe('config file: the ARCHITECTURE.md example validates', () => {
  it('accepts the example, resilience block included, and returns it normalised', () => {
    const config = validateConfig(exampleConfig());
    expect(config).toEqual(exampleConfig());
  });

  it('keeps the resilience block as given (its keys are checked when the config is applied)', () => {
    const config = validateConfig({ resilience: { modelLockout: { enabled: true }, anything: 1 } });
    expect(config.resilience).toEqual({ modelLockout: { enabled: true }, anything: 1 });
  });

  it('accepts an empty config and a $schema key', () => {
    expect(validateConfig({})).toEqual({ providers: [], combos: [] });
    expect(validateConfig({ $schema: './breakwater.schema.json' })).toEqual({
      providers: [],
      combos: [],
    });
  });

  it('fills defaults: authClass api_key, empty connections, priority strategy', () => {
    const config = validateConfig({
      providers: [{ id: 'local', format: 'openai', baseUrl: 'http://127.0.0.1:11434/v1' }],
      combos: [{ name: 'fast', targets: ['local/llama3'] }],
    });
    expect(config.providers).toEqual([
      {
        id: 'local',
        format: 'openai',
        baseUrl: 'http://127.0.0.1:11434/v1',
        authClass: 'api_key',
        connections: [],
        models: [],
      },
    ]);
    expect(config.combos).toEqual([
      { name: 'fast', strategy: 'priority', targets: ['local/llama3'] },
    ]);
  });
});

describe('config file: unknown fields are rejected, naming the field path', () => {
  it('at the top level', () => {
    const err = rejection(() => validateConfig({ ...exampleConfig(), proxies: [] }));
    expect(err.field).toBe('proxies');
    expect(err.reason).toMatch(/^unknown field/);
    expect(err.message).toBe(`proxies: ${err.reason}`);
  });

  it('in a provider, a connection, a combo and the gateway', () => {
    const cases: [unknown, string][] = [
      [{ providers: [provider({ apiKey: 'x' })] }, 'providers[0].apiKey'],
      [
        { providers: [provider({ connections: [{ id: 'c1', key: 'secret' }] })] },
        'providers[0].connections[0].key',
      ],
      [{ combos: [{ name: 'c', targets: ['a/b'], fallback: true }] }, 'combos[0].fallback'],
      [{ gateway: { bind: '0.0.0.0' } }, 'gateway.bind'],
      [
        { gateway: { apiKeys: [{ name: 'a', key: GATEWAY_KEY, role: 'x' }] } },
        'gateway.apiKeys[0].role',
      ],
      [{ gateway: { timeouts: { readMs: 5 } } }, 'gateway.timeouts.readMs'],
    ];
    for (const [input, field] of cases) {
      const err = rejection(() => validateConfig(input));
      expect(err.field).toBe(field);
      expect(err.reason).toMatch(/^unknown field \(allowed: /);
    }
  });

  it('a config that is not an object is rejected as a whole', () => {
    for (const input of [null, [], 'x', 42]) {
      const err = rejection(() => validateConfig(input));
      expect(err.field).toBe('body');
      expect(err.reason).toBe('must be a JSON object');
    }
  });
});

describe('provider: baseUrl must be an absolute http(s) URL without credentials', () => {
  const reasonFor = (baseUrl: unknown) =>
    rejection(() => validateProvider(provider({ baseUrl }), 'providers[0]'));

  it('accepts http and https and strips trailing slashes', () => {
    expect(validateProvider(provider({ baseUrl: 'https://api.openai.com/v1/' }), 'p').baseUrl).toBe(
      'https://api.openai.com/v1',
    );
    expect(validateProvider(provider({ baseUrl: 'http://localhost:11434' }), 'p').baseUrl).toBe(
      'http://localhost:11434',
    );
  });

  it('rejects a relative or malformed URL', () => {
    const err = reasonFor('api.openai.com/v1');
    expect(err.field).toBe('providers[0].baseUrl');
    expect(err.reason).toBe('must be an absolute http(s) URL');
  });

  it('rejects other schemes', () => {
    for (const url of ['ftp://example.com', 'file:///etc/passwd', 'ws://example.com']) {
      const err = reasonFor(url);
      expect(err.field).toBe('providers[0].baseUrl');
      expect(err.reason).toBe('must use http or https');
    }
  });

  it('rejects credentials in the URL without repeating them in the message', () => {
    for (const url of [
      'https://user:hunter2pass@api.example.com/v1',
      'https://sk-live-secretvalue@api.example.com/v1',
      'https://:onlypassword@api.example.com',
    ]) {
      const err = reasonFor(url);
      expect(err.field).toBe('providers[0].baseUrl');
      expect(err.reason).toMatch(/must not contain credentials/);
      expect(err.message).not.toMatch(/hunter2pass|secretvalue|onlypassword/);
    }
  });

  it('rejects a query or fragment', () => {
    expect(reasonFor('https://api.example.com/v1?key=abc').reason).toMatch(/query or fragment/);
    expect(reasonFor('https://api.example.com/v1#x').reason).toMatch(/query or fragment/);
  });

  it('rejects a missing or empty baseUrl', () => {
    expect(reasonFor(undefined).reason).toBe('must be a non-empty string');
    expect(reasonFor('').reason).toBe('must be a non-empty string');
  });
});

describe('provider: id, format, authClass, models and timeouts', () => {
  it('rejects an id that is not 1-64 letters, digits, ".", "_" or "-"', () => {
    for (const id of ['', '-openai', 'open ai', 'open/ai', 'a'.repeat(65), 42]) {
      const err = rejection(() => validateProvider(provider({ id }), 'providers[2]'));
      expect(err.field).toBe('providers[2].id');
    }
    expect(validateProvider(provider({ id: 'a'.repeat(64) }), 'p').id).toBe('a'.repeat(64));
  });

  it('rejects an unknown format or authClass', () => {
    const format = rejection(() => validateProvider(provider({ format: 'vertex' }), 'p'));
    expect(format.field).toBe('p.format');
    expect(format.reason).toBe('must be one of "openai", "openai-chat", "anthropic", "gemini"');
    const auth = rejection(() => validateProvider(provider({ authClass: 'cookie' }), 'p'));
    expect(auth.field).toBe('p.authClass');
    expect(auth.reason).toBe('must be one of "api_key", "oauth", "local"');
  });

  it('accepts models containing "/" and drops duplicate models', () => {
    const p = validateProvider(
      provider({ models: ['meta-llama/llama-3', 'gpt-5', 'meta-llama/llama-3'] }),
      'p',
    );
    expect(p.models).toEqual(['meta-llama/llama-3', 'gpt-5']);
  });

  it('rejects models that are not a list of non-empty strings', () => {
    expect(rejection(() => validateProvider(provider({ models: 'gpt-5' }), 'p')).field).toBe(
      'p.models',
    );
    expect(rejection(() => validateProvider(provider({ models: ['gpt-5', ''] }), 'p')).field).toBe(
      'p.models[1]',
    );
  });

  it('holds timeouts to the ranges of the global timeout settings', () => {
    expect(
      validateProvider(provider({ timeouts: { connectMs: 100, totalMs: 86_400_000 } }), 'p')
        .timeouts,
    ).toEqual({ connectMs: 100, totalMs: 86_400_000 });
    const err = rejection(() => validateProvider(provider({ timeouts: { idleMs: 99 } }), 'p'));
    expect(err.field).toBe('p.timeouts.idleMs');
    expect(err.reason).toBe('must be between 100 and 86400000');
    expect(
      rejection(() => validateProvider(provider({ timeouts: { totalMs: 999 } }), 'p')).reason,
    ).toBe('must be between 1000 and 86400000');
    expect(
      rejection(() => validateProvider(provider({ timeouts: { connectMs: 300_001 } }), 'p')).reason,
    ).toBe('must be between 100 and 300000');
  });

  it('rejects a non-boolean enabled', () => {
    const err = rejection(() => validateProvider(provider({ enabled: 'yes' }), 'p'));
    expect(err.field).toBe('p.enabled');
    expect(err.reason).toBe('must be true or false');
  });
});

describe('connection: set either apiKey or apiKeyEnv, not both', () => {
  it('accepts a literal key, an env name, or neither (local providers)', () => {
    expect(validateConnection({ id: 'c1', apiKey: 'sk-x' }, 'c')).toEqual({
      id: 'c1',
      apiKey: 'sk-x',
    });
    expect(validateConnection({ id: 'c1', apiKeyEnv: 'OPENAI_API_KEY' }, 'c')).toEqual({
      id: 'c1',
      apiKeyEnv: 'OPENAI_API_KEY',
    });
    expect(validateConnection({ id: 'c1', maxConcurrent: 0, enabled: false }, 'c')).toEqual({
      id: 'c1',
      maxConcurrent: 0,
      enabled: false,
    });
  });

  it('rejects both at once, naming the connection', () => {
    const err = rejection(() =>
      validateConnection(
        { id: 'c1', apiKey: 'sk-x', apiKeyEnv: 'OPENAI_API_KEY' },
        'providers[0].connections[1]',
      ),
    );
    expect(err.field).toBe('providers[0].connections[1]');
    expect(err.reason).toBe('set either apiKey or apiKeyEnv, not both');
  });

  it('rejects an apiKeyEnv that is not an environment variable name', () => {
    for (const name of ['1KEY', 'MY-KEY', 'sk-abc123', '']) {
      const err = rejection(() => validateConnection({ id: 'c1', apiKeyEnv: name }, 'c'));
      expect(err.field).toBe('c.apiKeyEnv');
    }
  });

  it('rejects maxConcurrent that is negative, fractional or too large', () => {
    for (const n of [-1, 1.5, 10_001, '2']) {
      const err = rejection(() => validateConnection({ id: 'c1', maxConcurrent: n }, 'c'));
      expect(err.field).toBe('c.maxConcurrent');
    }
  });
});

describe('ids are unique: providers, connections (global across providers), combos, gateway keys', () => {
  it('rejects a duplicate provider id', () => {
    const err = rejection(() =>
      validateConfig({ providers: [provider(), provider({ connections: [] })] }),
    );
    expect(err.field).toBe('providers[1]');
    expect(err.reason).toBe('duplicate "openai"');
  });

  it('rejects a duplicate connection id inside one provider', () => {
    const err = rejection(() =>
      validateConfig({
        providers: [provider({ connections: [{ id: 'k' }, { id: 'k' }] })],
      }),
    );
    expect(err.field).toBe('providers[0].connections[1]');
    expect(err.reason).toBe('duplicate "k"');
  });

  it('rejects the same connection id under two providers', () => {
    const err = rejection(() =>
      validateConfig({
        providers: [
          provider({ id: 'openai', connections: [{ id: 'main' }] }),
          provider({ id: 'azure', connections: [{ id: 'other' }, { id: 'main' }] }),
        ],
      }),
    );
    expect(err.field).toBe('providers[1].connections[1].id');
    expect(err.reason).toBe(
      'duplicate "main" (already used by provider "openai"; connection ids are global)',
    );
  });

  it('rejects a duplicate combo name and a duplicate gateway key name', () => {
    const combo = { name: 'coder', targets: ['openai/gpt-5'] };
    const c = rejection(() => validateConfig({ combos: [combo, combo] }));
    expect(c.field).toBe('combos[1]');
    expect(c.reason).toBe('duplicate "coder"');
    const key = { name: 'agent', key: GATEWAY_KEY };
    const g = rejection(() =>
      validateConfig({ gateway: { apiKeys: [key, { ...key, key: `${GATEWAY_KEY}x` }] } }),
    );
    expect(g.field).toBe('gateway.apiKeys[1]');
    expect(g.reason).toBe('duplicate "agent"');
  });
});

describe('combo: targets are "provider/model" or "provider/model@connection"', () => {
  it('accepts targets with and without a pinned connection, and models containing "/"', () => {
    expect(
      validateCombo(
        { name: 'coder', targets: ['openai/gpt-5@openai-1', 'openrouter/meta-llama/llama-3'] },
        'combos[0]',
      ),
    ).toEqual({
      name: 'coder',
      strategy: 'priority',
      targets: ['openai/gpt-5@openai-1', 'openrouter/meta-llama/llama-3'],
    });
  });

  it('rejects a bad target ref, naming its index', () => {
    for (const target of [
      'gpt-5',
      '/gpt-5',
      'openai/',
      'open ai/gpt-5',
      'openai/gpt-5@bad conn',
      'openai/gpt-5@-x',
    ]) {
      const err = rejection(() =>
        validateCombo({ name: 'coder', targets: ['openai/gpt-5', target] }, 'combos[3]'),
      );
      expect(err.field).toBe('combos[3].targets[1]');
      expect(err.reason).toBe('must be "provider/model" or "provider/model@connection"');
    }
  });

  it('rejects a non-string target, an empty or missing target list', () => {
    expect(rejection(() => validateCombo({ name: 'c', targets: [42] }, 'x')).field).toBe(
      'x.targets[0]',
    );
    const empty = rejection(() => validateCombo({ name: 'c', targets: [] }, 'x'));
    expect(empty.field).toBe('x.targets');
    expect(empty.reason).toBe('must not be empty');
    expect(rejection(() => validateCombo({ name: 'c' }, 'x')).field).toBe('x.targets');
  });

  it('rejects a name with spaces or "/", and a strategy it does not know', () => {
    for (const name of ['my combo', 'a/b', '', 'x'.repeat(129)]) {
      expect(rejection(() => validateCombo({ name, targets: ['a/b'] }, 'x')).field).toBe('x.name');
    }
    const err = rejection(() =>
      validateCombo({ name: 'c', strategy: 'roundrobin', targets: ['a/b'] }, 'x'),
    );
    expect(err.field).toBe('x.strategy');
    expect(err.reason).toMatch(/^must be one of "priority", "weighted", /);
  });
});

describe('gateway: ports, API keys of at least 16 characters, limits', () => {
  it('accepts ports 0 (pick a free port) to 65535', () => {
    for (const port of [0, 4141, 65_535]) {
      expect(validateGateway({ port }, 'gateway').port).toBe(port);
    }
  });

  it('rejects ports out of range or not integers', () => {
    for (const port of [-1, 65_536, 4141.5, '4141']) {
      const err = rejection(() => validateGateway({ port }, 'gateway'));
      expect(err.field).toBe('gateway.port');
    }
    expect(rejection(() => validateGateway({ port: 70_000 }, 'gateway')).reason).toBe(
      'must be between 0 and 65535',
    );
  });

  it('rejects a gateway key shorter than 16 characters and accepts 16', () => {
    const err = rejection(() =>
      validateGateway({ apiKeys: [{ name: 'agent', key: 'x'.repeat(15) }] }, 'gateway'),
    );
    expect(err.field).toBe('gateway.apiKeys[0].key');
    expect(err.reason).toBe('must be at least 16 characters');
    expect(
      validateGateway({ apiKeys: [{ name: 'agent', key: 'x'.repeat(16) }] }, 'gateway'),
    ).toEqual({
      apiKeys: [{ name: 'agent', key: 'x'.repeat(16) }],
    });
  });

  it('rejects a key without a name and a bad allowed connection id', () => {
    expect(
      rejection(() => validateGateway({ apiKeys: [{ key: GATEWAY_KEY }] }, 'gateway')).field,
    ).toBe('gateway.apiKeys[0].name');
    expect(
      rejection(() =>
        validateGateway(
          { apiKeys: [{ name: 'a', key: GATEWAY_KEY, allowedConnections: ['ok', 'not ok'] }] },
          'gateway',
        ),
      ).field,
    ).toBe('gateway.apiKeys[0].allowedConnections[1]');
  });

  it('checks maxBodyBytes, shutdownGraceMs and timeouts ranges', () => {
    expect(
      validateGateway({ maxBodyBytes: 1024, shutdownGraceMs: 0, timeouts: { idleMs: 500 } }, 'g'),
    ).toEqual({
      maxBodyBytes: 1024,
      shutdownGraceMs: 0,
      timeouts: { idleMs: 500 },
    });
    expect(rejection(() => validateGateway({ timeouts: { idleMs: 5 } }, 'g')).field).toBe(
      'g.timeouts.idleMs',
    );
    expect(rejection(() => validateGateway({ maxBodyBytes: 1023 }, 'g')).field).toBe(
      'g.maxBodyBytes',
    );
    expect(rejection(() => validateGateway({ shutdownGraceMs: 600_001 }, 'g')).field).toBe(
      'g.shutdownGraceMs',
    );
    expect(rejection(() => validateGateway({ host: '' }, 'g')).field).toBe('g.host');
  });
});

describe('parseTargetRef: "provider/model[@connection]"', () => {
  it('splits at the first "/" and the last "@"', () => {
    expect(parseTargetRef('openai/gpt-5')).toEqual({
      provider: 'openai',
      model: 'gpt-5',
      connection: null,
    });
    expect(parseTargetRef('openai/gpt-5@openai-2')).toEqual({
      provider: 'openai',
      model: 'gpt-5',
      connection: 'openai-2',
    });
    expect(parseTargetRef('openrouter/meta-llama/llama-3@or-1')).toEqual({
      provider: 'openrouter',
      model: 'meta-llama/llama-3',
      connection: 'or-1',
    });
  });

  it('returns null for refs without provider, model or a valid connection', () => {
    for (const ref of [
      '',
      'gpt-5',
      '/gpt-5',
      'openai/',
      'open ai/x',
      'openai/gpt-5@',
      'openai/gpt-5@a b',
    ]) {
      expect(parseTargetRef(ref)).toBeNull();
    }
  });

  const id = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/);

  it('round-trips provider/model for any valid provider id and model without "@"', () => {
    const model = fc.string({ minLength: 1, maxLength: 40 }).filter((m) => !m.includes('@'));
    fc.assert(
      fc.property(id, model, (provider, m) => {
        expect(parseTargetRef(`${provider}/${m}`)).toEqual({
          provider,
          model: m,
          connection: null,
        });
      }),
    );
  });

  it('round-trips provider/model@connection for any valid ids and any model', () => {
    const model = fc.string({ minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(id, model, id, (provider, m, connection) => {
        expect(parseTargetRef(`${provider}/${m}@${connection}`)).toEqual({
          provider,
          model: m,
          connection,
        });
      }),
    );
  });
});

describe('loading a config file: every failure names the file', () => {
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bw-config-'));
  });

  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function write(name: string, text: string): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  }

  it('loads and validates a valid file', () => {
    const file = write('breakwater.json', JSON.stringify(exampleConfig()));
    expect(loadConfigFile(file)).toEqual(exampleConfig());
  });

  it('a missing file', () => {
    const file = path.join(dir, 'missing.json');
    expect(() => loadConfigFile(file)).toThrow(`cannot read config file ${file}: no such file`);
  });

  it('invalid JSON', () => {
    const file = write('broken.json', '{ "providers": [ }');
    expect(() => loadConfigFile(file)).toThrow(`config file ${file} is not valid JSON: `);
  });

  it('an invalid field, with its path and reason', () => {
    const file = write(
      'bad.json',
      JSON.stringify({ providers: [provider({ baseUrl: 'https://u:p@api.example.com' })] }),
    );
    expect(() => loadConfigFile(file)).toThrow(
      `config file ${file}: providers[0].baseUrl: must not contain credentials; use a connection apiKey`,
    );
  });

  it('an unknown field', () => {
    const file = write('unknown.json', JSON.stringify({ gateway: { bind: '0.0.0.0' } }));
    expect(() => loadConfigFile(file)).toThrow(
      new RegExp(
        `^config file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: gateway\\.bind: unknown field`,
      ),
    );
  });
});
