// Builders shared by the strategy tests: real catalogs, real candidates, the real signals store.

import { Catalog, type CatalogProviderInput } from '../../src/main/engine/config/catalog';
import { type Candidate, routeModel } from '../../src/main/engine/routing/resolve';
import {
  type LiveLoad,
  RoutingSignals,
  type SignalsView,
} from '../../src/main/engine/routing/signals';
import type { StrategyRequest } from '../../src/main/engine/routing/strategies';
import type { ComboConfig, ComboOptions, ComboTarget, ModelEntry } from '../../src/shared/contract';

/** mulberry32: a seeded source for reproducible draws. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface ProviderSpec {
  id: string;
  models: ModelEntry[];
  connections?: { id: string; maxConcurrent?: number }[];
}

export function catalogOf(providers: ProviderSpec[], combos: ComboConfig[] = []): Catalog {
  const inputs: CatalogProviderInput[] = providers.map((p) => ({
    id: p.id,
    format: 'openai',
    baseUrl: `http://${p.id}.invalid/v1`,
    authClass: 'api_key',
    models: p.models,
    timeouts: {},
    enabled: true,
    connections: (p.connections ?? [{ id: `${p.id}-1` }]).map((c) => ({
      id: c.id,
      provider: p.id,
      apiKey: 'k',
      apiKeyEnv: null,
      maxConcurrent: c.maxConcurrent ?? null,
      enabled: true,
    })),
  }));
  return new Catalog(inputs, combos, {}, new Map([['known-model', { contextWindow: 1000 }]]));
}

/** A combo over `targets` and its candidates, in configured order. */
export function comboCandidates(
  catalog: Catalog,
  name: string,
): { candidates: readonly Candidate[]; catalog: Catalog } {
  const route = routeModel(catalog, name);
  if (!route.expansion) throw new Error(`combo ${name} does not resolve`);
  return { candidates: route.expansion.candidates, catalog };
}

/** Providers a..n, each serving model `m` with `conns` connections, and a combo `c` over them. */
export function simpleCombo(
  n: number,
  opts: { conns?: number; weights?: number[]; strategy?: ComboConfig['strategy'] } = {},
): { candidates: readonly Candidate[]; catalog: Catalog } {
  const ids = Array.from({ length: n }, (_, i) => String.fromCharCode(97 + i));
  const targets: ComboTarget[] = ids.map((id, i) =>
    opts.weights ? { target: `${id}/m`, weight: opts.weights[i]! } : `${id}/m`,
  );
  const catalog = catalogOf(
    ids.map((id) => ({
      id,
      models: ['m'],
      connections: Array.from({ length: opts.conns ?? 1 }, (_, j) => ({ id: `${id}${j + 1}` })),
    })),
    [{ name: 'c', strategy: opts.strategy ?? 'priority', targets }],
  );
  return comboCandidates(catalog, 'c');
}

export interface Live extends LiveLoad {
  load: Map<string, number>;
  full: Set<string>;
}

export function live(): Live {
  const load = new Map<string, number>();
  const full = new Set<string>();
  return {
    load,
    full,
    inFlight: (c) => load.get(c) ?? 0,
    saturated: (c) => full.has(c.connection.id),
  };
}

export function viewOf(
  signals: RoutingSignals,
  catalog: Catalog,
  l: LiveLoad = live(),
  now = 1_000_000,
): SignalsView {
  return signals.view(l, catalog, now);
}

export function request(
  over: Partial<StrategyRequest> & { options?: ComboOptions } = {},
): StrategyRequest {
  return {
    combo: 'c',
    options: {},
    client: null,
    inputTokens: () => 1000,
    maxOutputTokens: () => 500,
    prefix: () => 'p1',
    ...over,
  };
}

export const labels = (order: readonly Candidate[]): string[] =>
  order.map((c) => `${c.target.label}@${c.connection.id}`);

export const firstTarget = (order: readonly Candidate[]): string => order[0]!.target.label;

export { RoutingSignals };
