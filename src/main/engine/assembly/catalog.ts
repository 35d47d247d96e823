import { Catalog } from '../config/catalog';
import { loadModelDefaults } from '../routing/model-defaults';
import type { Store } from '../store';
import { storedRules } from '../store/rules';

export interface CatalogSource {
  current(): Catalog;
  /** Reads providers, connections, combos and rules from the store again. */
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
      storedRules(store),
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
