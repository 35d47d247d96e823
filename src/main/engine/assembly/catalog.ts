import { Catalog } from '../config/catalog';
import { loadModelDefaults } from '../routing/model-defaults';
import type { Store } from '../store';

export interface CatalogSource {
  current(): Catalog;
  /** Reads providers, connections and combos from the store again. */
  reload(): Catalog;
}

/** The catalog as the engine reads it, rebuilt from the store after the admin API changes it. */
export function catalogSource(store: Store, env: NodeJS.ProcessEnv): CatalogSource {
  const modelDefaults = loadModelDefaults();
  const load = () =>
    new Catalog(
      store.providers.list().map((p) => ({
        ...p,
        connections: store.connections.list(p.id),
      })),
      store.combos.list(),
      env,
      modelDefaults,
    );
  let catalog = load();
  return {
    current: () => catalog,
    reload: () => {
      catalog = load();
      return catalog;
    },
  };
}
