import type { ClientFormat, ProviderFormat } from '../../../shared/contract';
import { comboTargets } from '../../../shared/schema/combo';
import type { Catalog, CatalogConnection, CatalogProvider } from '../config/catalog';
import { parseTargetRef, targetRefOf, weightOf } from '../config/validate';

/** One thing routing may try: a provider's model, optionally pinned to one connection. */
export interface Target {
  label: string;
  provider: CatalogProvider;
  model: string;
  pinnedConnection: string | null;
  /** The combo's `weight` for this target (1 when unset). */
  weight?: number;
}

/** A target bound to one connection: the unit the pipeline dispatches. */
export interface Candidate {
  target: Target;
  connection: CatalogConnection;
}

export type Resolution =
  | { kind: 'targets'; combo: string | null; targets: Target[] }
  | { kind: 'not_found'; lookedIn: string[] }
  | { kind: 'ambiguous'; providers: string[] };

export function providerFormatFor(client: ClientFormat): ProviderFormat {
  return client === 'anthropic' ? 'anthropic' : 'openai';
}

function targetOf(catalog: Catalog, ref: string, weight?: number): Target | null {
  const parsed = parseTargetRef(ref);
  if (!parsed) return null;
  const provider = catalog.providers.get(parsed.provider);
  if (!provider) return null;
  return {
    label: `${provider.id}/${parsed.model}`,
    provider,
    model: parsed.model,
    pinnedConnection: parsed.connection,
    ...(weight !== undefined && weight !== 1 ? { weight } : {}),
  };
}

/** The model name that asks for the active combo (setting `routing.activeCombo`). */
export const DEFAULT_MODEL_ALIAS = 'default';

/**
 * The name to route a request's `model` by: "default" means the active combo, unless a combo is
 * itself named "default" or none is active. Every other name routes as sent.
 */
export function aliasedModel(catalog: Catalog, model: string, activeCombo: string | null): string {
  if (model !== DEFAULT_MODEL_ALIAS || !activeCombo || catalog.combos.has(model)) return model;
  return activeCombo;
}

/**
 * A request's `model` names, in this order: a combo, `provider/model`, or a bare model that
 * exactly one enabled provider lists. Models may themselves contain "/" (e.g. OpenRouter's
 * `meta-llama/llama-3`), so a prefix that is not a provider id falls through to the bare lookup.
 */
export function resolveModel(catalog: Catalog, model: string): Resolution {
  const combo = catalog.combos.get(model);
  if (combo) {
    const targets = comboTargets(combo)
      .map((t) => targetOf(catalog, targetRefOf(t), weightOf(t)))
      .filter((t): t is Target => t !== null);
    return { kind: 'targets', combo: combo.name, targets };
  }
  const slash = model.indexOf('/');
  if (slash > 0) {
    const provider = catalog.providers.get(model.slice(0, slash));
    if (provider) {
      const direct = targetOf(catalog, model);
      if (direct) return { kind: 'targets', combo: null, targets: [direct] };
    }
  }
  const owners = catalog.modelOwners.get(model) ?? [];
  if (owners.length > 1) return { kind: 'ambiguous', providers: owners };
  const owner = owners[0] ? catalog.providers.get(owners[0]) : undefined;
  if (owner) {
    return {
      kind: 'targets',
      combo: null,
      targets: [{ label: `${owner.id}/${model}`, provider: owner, model, pinnedConnection: null }],
    };
  }
  return {
    kind: 'not_found',
    lookedIn: [
      `combos (${[...catalog.combos.keys()].join(', ') || 'none'})`,
      `provider/model (providers: ${[...catalog.providers.keys()].join(', ') || 'none'})`,
      'models listed by enabled providers',
    ],
  };
}

/** Why a target could not produce any candidate (used for `no_executable_targets`). */
export interface Unexecutable {
  target: string;
  reason: string;
}

/** Expands targets into (target, connection) candidates in priority order. */
export function expandCandidates(targets: Target[]): {
  candidates: Candidate[];
  unexecutable: Unexecutable[];
} {
  const candidates: Candidate[] = [];
  const unexecutable: Unexecutable[] = [];
  for (const target of targets) {
    if (!target.provider.enabled) {
      unexecutable.push({ target: target.label, reason: 'provider is disabled' });
      continue;
    }
    const conns = target.provider.connections.filter(
      (c) => c.enabled && (target.pinnedConnection === null || c.id === target.pinnedConnection),
    );
    if (conns.length === 0) {
      unexecutable.push({
        target: target.label,
        reason: target.pinnedConnection
          ? `connection ${target.pinnedConnection} is missing or disabled`
          : 'provider has no enabled connection',
      });
      continue;
    }
    for (const connection of conns) candidates.push({ target, connection });
  }
  return { candidates, unexecutable };
}

/** A model name's resolution and, when it names targets, their candidates. */
export type Route =
  | {
      readonly resolution: Extract<Resolution, { kind: 'targets' }>;
      readonly expansion: {
        readonly candidates: readonly Candidate[];
        readonly unexecutable: readonly Unexecutable[];
      };
    }
  | { readonly resolution: Exclude<Resolution, { kind: 'targets' }>; readonly expansion: null };

// Names a client may send are unbounded; the ones a gateway really serves are few.
const ROUTE_CACHE_LIMIT = 256;
const routes = new WeakMap<Catalog, Map<string, Route>>();

/**
 * `resolveModel` then `expandCandidates`, remembered per catalog: a catalog never changes (a
 * reload builds a new one), and every request of a session names the same model. Names that
 * resolve to nothing are not remembered. The result is shared, its lists frozen.
 */
export function routeModel(catalog: Catalog, model: string): Route {
  let cache = routes.get(catalog);
  const hit = cache?.get(model);
  if (hit) return hit;
  const resolution = resolveModel(catalog, model);
  if (resolution.kind !== 'targets') return { resolution, expansion: null };
  const { candidates, unexecutable } = expandCandidates(resolution.targets);
  // Frozen: a caller that pushed onto a shared list would change every later request's route.
  const route: Route = {
    resolution,
    expansion: { candidates: Object.freeze(candidates), unexecutable: Object.freeze(unexecutable) },
  };
  if (!cache) {
    cache = new Map();
    routes.set(catalog, cache);
  }
  // `provider/<anything>` resolves, so a client can name endlessly many: the oldest goes first.
  if (cache.size >= ROUTE_CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(model, route);
  return route;
}
