import { describe, expect, it } from 'vitest';
import { Catalog, type CatalogProviderInput } from '../../src/main/engine/config/catalog';

function provider(
  keys: { apiKey: string | null; apiKeyEnv: string | null }[],
): CatalogProviderInput {
  return {
    id: 'p',
    format: 'openai',
    baseUrl: 'http://p.invalid/v1',
    authClass: 'api_key',
    models: ['listed', { id: 'priced', price: { input: 1, output: 2 } }],
    timeouts: {},
    enabled: true,
    connections: keys.map((k, i) => ({
      id: `p-${i}`,
      provider: 'p',
      ...k,
      maxConcurrent: null,
      enabled: true,
    })),
  };
}

describe('Catalog: what the request path asks of it on every request', () => {
  it('a model spec is worked out once per provider and model, frozen, and equal to the listing', () => {
    const defaults = new Map([['listed', { contextWindow: 1000 }]]);
    const catalog = new Catalog([provider([{ apiKey: 'k', apiKeyEnv: null }])], [], {}, defaults);
    const spec = catalog.modelSpec('p', 'listed');
    expect(spec).toEqual({ id: 'listed', contextWindow: 1000 });
    expect(catalog.modelSpec('p', 'listed')).toBe(spec);
    expect(Object.isFrozen(spec)).toBe(true);
    expect(catalog.modelSpec('p', 'priced').price).toEqual({ input: 1, output: 2 });
    // A provider the catalog does not know still gets the defaults, without a cache of its own.
    expect(catalog.modelSpec('nobody', 'listed')).toEqual({ id: 'listed', contextWindow: 1000 });
  });

  it('names a client invents (`provider/<anything>`) never make the spec cache grow past its cap', () => {
    const catalog = new Catalog([provider([{ apiKey: 'k', apiKeyEnv: null }])], [], {});
    const first = catalog.modelSpec('p', 'model-0');
    for (let i = 1; i < 5000; i++) catalog.modelSpec('p', `model-${i}`);
    // Emptied whole when full: the first entry is worked out again, equal but not the same.
    const again = catalog.modelSpec('p', 'model-0');
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
  });

  it('inline keys are listed once; a key from the environment is read again each time', () => {
    const env: NodeJS.ProcessEnv = { P_KEY: 'sk-env-one' };
    const inline = new Catalog([provider([{ apiKey: 'sk-inline', apiKeyEnv: null }])], [], env);
    expect(inline.secrets()).toEqual(['sk-inline']);
    expect(inline.secrets()).toBe(inline.secrets());

    const fromEnv = new Catalog(
      [
        provider([
          { apiKey: 'sk-inline', apiKeyEnv: null },
          { apiKey: null, apiKeyEnv: 'P_KEY' },
        ]),
      ],
      [],
      env,
    );
    expect(fromEnv.secrets()).toEqual(['sk-inline', 'sk-env-one']);
    env.P_KEY = 'sk-env-two';
    expect(fromEnv.secrets()).toEqual(['sk-inline', 'sk-env-two']);
    delete env.P_KEY;
    expect(fromEnv.secrets()).toEqual(['sk-inline']);
  });
});
