import type { BreakwaterConfig } from '../contract';
import { ValidationError } from '../validation-error';
import { validateCombo } from './combo';
import { validateGateway } from './gateway';
import { validateProvider } from './provider';
import { validateRules } from './rules';
import { validateState } from './state';
import type { TimeoutRanges } from './timeouts';
import { array, object, uniqueBy } from './values';
import { validateWebSearch } from './web-search';

/**
 * Validates a whole config file, including duplicate ids. Combo targets may name providers that
 * exist only in the database, so they are checked against the catalog when applied.
 */
export function validateConfig(value: unknown, timeoutRanges: TimeoutRanges): BreakwaterConfig {
  const o = object(value, '', [
    '$schema',
    'gateway',
    'providers',
    'combos',
    'resilience',
    'state',
    'rules',
    'webSearch',
  ]);
  const config: BreakwaterConfig = {};
  if (o.gateway !== undefined) {
    config.gateway = validateGateway(o.gateway, 'gateway', timeoutRanges);
  }
  const providers = array(o.providers ?? [], 'providers').map((p, i) => {
    const provider = validateProvider(p, `providers[${i}]`, timeoutRanges);
    return { ...provider, connections: provider.connections ?? [] };
  });
  uniqueBy(providers, (p) => p.id, 'providers');
  const connectionOwner = new Map<string, string>();
  providers.forEach((p, i) => {
    p.connections.forEach((c, j) => {
      const other = connectionOwner.get(c.id);
      if (other !== undefined) {
        throw new ValidationError(
          `providers[${i}].connections[${j}].id`,
          `duplicate "${c.id}" (already used by provider "${other}"; connection ids are global)`,
        );
      }
      connectionOwner.set(c.id, p.id);
    });
  });
  config.providers = providers;
  const combos = array(o.combos ?? [], 'combos').map((c, i) => validateCombo(c, `combos[${i}]`));
  uniqueBy(combos, (c) => c.name, 'combos');
  config.combos = combos;
  if (o.resilience !== undefined) {
    // Keys are checked against the settings registry when the config is applied.
    config.resilience = object(o.resilience, 'resilience', null);
  }
  if (o.state !== undefined) config.state = validateState(o.state, 'state');
  // Whether each `use` names something is checked against the store when applied.
  if (o.rules !== undefined) config.rules = validateRules(o.rules, 'rules');
  if (o.webSearch !== undefined) config.webSearch = validateWebSearch(o.webSearch, 'webSearch');
  return config;
}
