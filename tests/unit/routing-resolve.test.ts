import { describe, expect, it } from 'vitest';
import {
  Catalog,
  type CatalogConnection,
  type CatalogProvider,
} from '../../src/main/engine/config/catalog';
import {
  expandCandidates,
  providerFormatFor,
  type Resolution,
  resolveModel,
  routeModel,
  type Target,
} from '../../src/main/engine/routing/resolve';
import type { ComboConfig } from '../../src/shared/contract';

function conn(provider: string, id: string, enabled = true): CatalogConnection {
  return { id, provider, apiKey: null, apiKeyEnv: null, maxConcurrent: null, enabled };
}

function provider(
  id: string,
  models: string[],
  opts: { connections?: string[]; disabledConnections?: string[]; enabled?: boolean } = {},
): CatalogProvider {
  const enabled = (opts.connections ?? [`${id}-1`]).map((c) => conn(id, c));
  const disabled = (opts.disabledConnections ?? []).map((c) => conn(id, c, false));
  return {
    id,
    format: id === 'anthropic' ? 'anthropic' : 'openai',
    baseUrl: `https://${id}.example/v1`,
    authClass: 'api_key',
    models,
    timeouts: {},
    enabled: opts.enabled ?? true,
    connections: [...enabled, ...disabled],
  };
}

function combo(name: string, targets: string[]): ComboConfig {
  return { name, strategy: 'priority', targets };
}

function catalog(providers: CatalogProvider[], combos: ComboConfig[] = []): Catalog {
  return new Catalog(providers, combos, {});
}

/** The targets of a resolution as `label` strings (`provider/model`, `@conn` when pinned). */
function labels(r: Resolution): string[] {
  if (r.kind !== 'targets') throw new Error(`expected targets, got ${JSON.stringify(r)}`);
  return r.targets.map((t) => (t.pinnedConnection ? `${t.label}@${t.pinnedConnection}` : t.label));
}

function only(r: Resolution): Target {
  if (r.kind !== 'targets' || r.targets.length !== 1) {
    throw new Error(`expected one target, got ${JSON.stringify(r)}`);
  }
  return r.targets[0]!;
}

const openai = provider('openai', ['gpt-5', 'gpt-5-mini'], {
  connections: ['openai-1', 'openai-2'],
});
const anthropic = provider('anthropic', ['claude-sonnet-4-5']);
const openrouter = provider('openrouter', ['meta-llama/llama-3', 'gpt-5-mini']);

describe('a model resolves to a combo name, or provider/model, or a bare model — in that order', () => {
  it('a combo name resolves to its targets in order', () => {
    const c = catalog(
      [openai, anthropic],
      [combo('coder', ['anthropic/claude-sonnet-4-5', 'openai/gpt-5'])],
    );
    const r = resolveModel(c, 'coder');
    expect(r).toMatchObject({ kind: 'targets', combo: 'coder' });
    expect(labels(r)).toEqual(['anthropic/claude-sonnet-4-5', 'openai/gpt-5']);
  });

  it('a combo wins over a bare model of the same name', () => {
    const c = catalog([openai, anthropic], [combo('gpt-5', ['anthropic/claude-sonnet-4-5'])]);
    const r = resolveModel(c, 'gpt-5');
    expect(r).toMatchObject({ kind: 'targets', combo: 'gpt-5' });
    expect(labels(r)).toEqual(['anthropic/claude-sonnet-4-5']);
  });

  it('combo targets keep their pinned connection; targets naming unknown providers are dropped', () => {
    const c = catalog(
      [openai],
      [combo('pinned', ['openai/gpt-5@openai-2', 'ghost/gpt-5', 'openai/gpt-5-mini'])],
    );
    expect(labels(resolveModel(c, 'pinned'))).toEqual([
      'openai/gpt-5@openai-2',
      'openai/gpt-5-mini',
    ]);
  });

  it('provider/model resolves to that provider, even for a model it does not list', () => {
    const c = catalog([openai, anthropic]);
    const t = only(resolveModel(c, 'openai/gpt-5'));
    expect(t).toMatchObject({ label: 'openai/gpt-5', model: 'gpt-5', pinnedConnection: null });
    expect(t.provider.id).toBe('openai');
    expect(only(resolveModel(c, 'openai/gpt-4.1')).model).toBe('gpt-4.1');
  });

  it('provider/model@connection pins the connection', () => {
    const t = only(resolveModel(catalog([openai]), 'openai/gpt-5@openai-2'));
    expect(t).toMatchObject({
      label: 'openai/gpt-5',
      model: 'gpt-5',
      pinnedConnection: 'openai-2',
    });
  });

  it('provider/model wins over a bare model that happens to contain the same text', () => {
    const router = provider('router', ['openai/gpt-5']);
    const t = only(resolveModel(catalog([openai, router]), 'openai/gpt-5'));
    expect(t.provider.id).toBe('openai');
    expect(t.model).toBe('gpt-5');
  });

  it('a bare model resolves to the one enabled provider that lists it', () => {
    const r = resolveModel(catalog([openai, anthropic]), 'claude-sonnet-4-5');
    expect(r).toMatchObject({ kind: 'targets', combo: null });
    const t = only(r);
    expect(t).toMatchObject({
      label: 'anthropic/claude-sonnet-4-5',
      model: 'claude-sonnet-4-5',
      pinnedConnection: null,
    });
    expect(t.provider.id).toBe('anthropic');
  });
});

describe('models may themselves contain "/"', () => {
  it('openrouter/meta-llama/llama-3 is provider openrouter, model meta-llama/llama-3', () => {
    const t = only(resolveModel(catalog([openrouter]), 'openrouter/meta-llama/llama-3'));
    expect(t.provider.id).toBe('openrouter');
    expect(t.model).toBe('meta-llama/llama-3');
    expect(t.label).toBe('openrouter/meta-llama/llama-3');
  });

  it('a bare meta-llama/llama-3 falls through to the provider that lists it when no provider is called meta-llama', () => {
    const t = only(resolveModel(catalog([openai, openrouter]), 'meta-llama/llama-3'));
    expect(t.provider.id).toBe('openrouter');
    expect(t.model).toBe('meta-llama/llama-3');
    expect(t.label).toBe('openrouter/meta-llama/llama-3');
  });

  it('a prefix that is not a provider id and no listing is not found', () => {
    expect(resolveModel(catalog([openrouter]), 'mistral/mixtral').kind).toBe('not_found');
  });
});

describe('a bare model listed by several enabled providers is ambiguous', () => {
  it('names every provider that lists it', () => {
    expect(resolveModel(catalog([openai, anthropic, openrouter]), 'gpt-5-mini')).toEqual({
      kind: 'ambiguous',
      providers: ['openai', 'openrouter'],
    });
  });

  it('provider/model picks one of them', () => {
    expect(
      only(resolveModel(catalog([openai, openrouter]), 'openrouter/gpt-5-mini')).provider.id,
    ).toBe('openrouter');
  });
});

describe('disabled providers do not own bare models', () => {
  it('the enabled provider owns the model alone, so it is not ambiguous', () => {
    const azure = provider('azure', ['gpt-5'], { enabled: false });
    expect(only(resolveModel(catalog([azure, openai]), 'gpt-5')).provider.id).toBe('openai');
  });

  it('a model listed only by a disabled provider is not found', () => {
    const azure = provider('azure', ['gpt-5'], { enabled: false });
    expect(resolveModel(catalog([azure]), 'gpt-5').kind).toBe('not_found');
  });

  it('provider/model still names a disabled provider (expansion then reports it)', () => {
    const azure = provider('azure', ['gpt-5'], { enabled: false });
    const t = only(resolveModel(catalog([azure]), 'azure/gpt-5'));
    expect(expandCandidates([t]).unexecutable).toEqual([
      { target: 'azure/gpt-5', reason: 'provider is disabled' },
    ]);
  });
});

describe('not_found lists where it looked', () => {
  it('combos, providers and the bare models of enabled providers', () => {
    const c = catalog(
      [openai, anthropic],
      [combo('coder', ['openai/gpt-5']), combo('fast', ['openai/gpt-5-mini'])],
    );
    expect(resolveModel(c, 'gpt-9')).toEqual({
      kind: 'not_found',
      lookedIn: [
        'combos (coder, fast)',
        'provider/model (providers: openai, anthropic)',
        'models listed by enabled providers',
      ],
    });
  });

  it('says none when there is nothing to look in', () => {
    expect(resolveModel(catalog([]), 'gpt-5')).toEqual({
      kind: 'not_found',
      lookedIn: [
        'combos (none)',
        'provider/model (providers: none)',
        'models listed by enabled providers',
      ],
    });
  });

  it('an invalid pinned connection on provider/model is not a target', () => {
    expect(resolveModel(catalog([openai]), 'openai/gpt-9@bad conn').kind).toBe('not_found');
  });
});

describe('expandCandidates: targets become (target, connection) candidates in priority order', () => {
  const candidates = (targets: Target[]) =>
    expandCandidates(targets).candidates.map((c) => `${c.target.label}@${c.connection.id}`);

  it('target order first, then the provider’s connection order', () => {
    const c = catalog(
      [openai, anthropic],
      [combo('coder', ['openai/gpt-5', 'anthropic/claude-sonnet-4-5'])],
    );
    const r = resolveModel(c, 'coder');
    if (r.kind !== 'targets') throw new Error('expected targets');
    expect(candidates(r.targets)).toEqual([
      'openai/gpt-5@openai-1',
      'openai/gpt-5@openai-2',
      'anthropic/claude-sonnet-4-5@anthropic-1',
    ]);
    expect(expandCandidates(r.targets).unexecutable).toEqual([]);
  });

  it('a pinned connection (@conn) yields only that connection', () => {
    const t = only(resolveModel(catalog([openai]), 'openai/gpt-5@openai-2'));
    expect(candidates([t])).toEqual(['openai/gpt-5@openai-2']);
  });

  it('disabled connections are skipped', () => {
    const p = provider('openai', ['gpt-5'], {
      connections: ['a', 'c'],
      disabledConnections: ['b'],
    });
    const t = only(resolveModel(catalog([p]), 'gpt-5'));
    expect(candidates([t])).toEqual(['openai/gpt-5@a', 'openai/gpt-5@c']);
  });

  it('the same connection appears once per target that uses it', () => {
    const c = catalog([openai], [combo('twice', ['openai/gpt-5@openai-1', 'openai/gpt-5-mini'])]);
    const r = resolveModel(c, 'twice');
    if (r.kind !== 'targets') throw new Error('expected targets');
    expect(candidates(r.targets)).toEqual([
      'openai/gpt-5@openai-1',
      'openai/gpt-5-mini@openai-1',
      'openai/gpt-5-mini@openai-2',
    ]);
  });
});

describe('expandCandidates: unexecutable targets say why', () => {
  it('provider is disabled', () => {
    const p = provider('azure', ['gpt-5'], { enabled: false });
    const t = only(resolveModel(catalog([p]), 'azure/gpt-5'));
    expect(expandCandidates([t])).toEqual({
      candidates: [],
      unexecutable: [{ target: 'azure/gpt-5', reason: 'provider is disabled' }],
    });
  });

  it('provider has no enabled connection', () => {
    const none = provider('empty', ['m'], { connections: [] });
    const off = provider('off', ['n'], { connections: [], disabledConnections: ['off-1'] });
    const c = catalog([none, off]);
    expect(
      expandCandidates([only(resolveModel(c, 'm')), only(resolveModel(c, 'n'))]).unexecutable,
    ).toEqual([
      { target: 'empty/m', reason: 'provider has no enabled connection' },
      { target: 'off/n', reason: 'provider has no enabled connection' },
    ]);
  });

  it('pinned connection is missing or disabled', () => {
    const p = provider('openai', ['gpt-5'], { connections: ['a'], disabledConnections: ['b'] });
    const c = catalog([p], [combo('x', ['openai/gpt-5@b', 'openai/gpt-5@zz', 'openai/gpt-5@a'])]);
    const r = resolveModel(c, 'x');
    if (r.kind !== 'targets') throw new Error('expected targets');
    const out = expandCandidates(r.targets);
    expect(out.candidates.map((x) => x.connection.id)).toEqual(['a']);
    expect(out.unexecutable).toEqual([
      { target: 'openai/gpt-5', reason: 'connection b is missing or disabled' },
      { target: 'openai/gpt-5', reason: 'connection zz is missing or disabled' },
    ]);
  });

  it('no targets, no candidates', () => {
    expect(expandCandidates([])).toEqual({ candidates: [], unexecutable: [] });
  });
});

describe('providerFormatFor: the provider format a client format needs', () => {
  it('Anthropic clients need anthropic providers; both OpenAI endpoints need openai providers', () => {
    expect(providerFormatFor('anthropic')).toBe('anthropic');
    expect(providerFormatFor('openai-chat')).toBe('openai');
    expect(providerFormatFor('openai-responses')).toBe('openai');
  });
});

describe('routeModel: resolution and candidates remembered per catalog', () => {
  it('answers the same route for the same name, and a fresh one for a new catalog', () => {
    const providers = [provider('openai', ['gpt-4o'], { connections: ['oa-1', 'oa-2'] })];
    const c1 = catalog(providers, [combo('coder', ['openai/gpt-4o'])]);
    const first = routeModel(c1, 'coder');
    expect(first.expansion?.candidates.map((c) => c.connection.id)).toEqual(['oa-1', 'oa-2']);
    expect(routeModel(c1, 'coder')).toBe(first);
    const c2 = catalog(providers, [combo('coder', ['openai/gpt-4o@oa-2'])]);
    expect(routeModel(c2, 'coder').expansion?.candidates.map((c) => c.connection.id)).toEqual([
      'oa-2',
    ]);
  });

  it('shares its lists frozen, and forgets the oldest name when full', () => {
    const c = catalog([provider('openai', ['gpt-4o'])]);
    const first = routeModel(c, 'openai/m-0');
    expect(Object.isFrozen(first.expansion?.candidates)).toBe(true);
    expect(() => (first.expansion!.candidates as unknown[]).push(1)).toThrow();
    // `provider/<anything>` resolves: a client naming endlessly many must not pin the cache.
    for (let i = 1; i <= 256; i++) routeModel(c, `openai/m-${i}`);
    expect(routeModel(c, 'openai/m-256')).toBe(routeModel(c, 'openai/m-256'));
    expect(routeModel(c, 'openai/m-0')).not.toBe(first);
  });

  it('does not remember names that resolve to nothing', () => {
    const c = catalog([provider('openai', ['gpt-4o'])]);
    const miss = routeModel(c, 'nope');
    expect(miss.resolution.kind).toBe('not_found');
    expect(miss.expansion).toBeNull();
    expect(routeModel(c, 'nope')).not.toBe(miss);
  });

  it('matches resolveModel and expandCandidates', () => {
    const c = catalog(
      [provider('openai', ['gpt-4o']), provider('anthropic', ['claude'], { enabled: false })],
      [combo('mix', ['openai/gpt-4o', 'anthropic/claude'])],
    );
    const route = routeModel(c, 'mix');
    const resolution = resolveModel(c, 'mix');
    expect(route.resolution).toEqual(resolution);
    if (resolution.kind !== 'targets') throw new Error('expected targets');
    expect(route.expansion).toEqual(expandCandidates(resolution.targets));
  });
});
