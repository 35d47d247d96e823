import type { BreakwaterConfig } from '../../../shared/contract';
import { targetRefOf } from '../../../shared/schema/combo';
import { checkRuleUses, type RuleTargets } from '../../../shared/schema/rules';
import type { Logger } from '../logger';
import { flattenSettings, type Settings } from '../settings/settings';
import type { Store } from './';
import { connectionRecord, providerRecord } from './config-records';
import { saveRules } from './rules';
import { keepingStoredKey } from './web-search';

function storeTargets(store: Store): RuleTargets {
  return {
    hasCombo: (name) => store.combos.get(name) !== undefined,
    providerModels: (id) =>
      store.providers.get(id)?.models.map((m) => (typeof m === 'string' ? m : m.id)),
  };
}

/**
 * Applies a config file at start. Entries the file names are created or replaced (file edits
 * take effect on restart); entries created in the dashboard or API are left alone, since the
 * database is the source of truth once running. A connection named in the file without a
 * secret keeps the secret stored for it.
 */
export function applyConfig(
  config: BreakwaterConfig,
  store: Store,
  settings: Settings,
  log: Logger,
): void {
  store.db.transaction(() => {
    (config.providers ?? []).forEach((p, i) => {
      const existing = store.providers.get(p.id);
      store.providers.upsert(providerRecord(p, existing?.position ?? i, existing));
      p.connections.forEach((c, j) => {
        const prev = store.connections.get(c.id);
        if (prev && prev.provider !== p.id) {
          throw new Error(
            `config: connection "${c.id}" already belongs to provider "${prev.provider}" in the database`,
          );
        }
        const record = connectionRecord(p.id, c, prev, prev?.position ?? j);
        store.connections.upsert(record);
        // A new credential in the file ends a terminal state (banned, expired, credits) too.
        if (prev && (prev.apiKey !== record.apiKey || prev.apiKeyEnv !== record.apiKeyEnv)) {
          store.resilience.save(
            { breakers: new Map(), health: new Map([[c.id, null]]), lockouts: new Map() },
            Date.now(),
          );
        }
      });
    });
    for (const combo of config.combos ?? []) {
      for (const target of combo.targets.map(targetRefOf)) {
        const provider = target.slice(0, target.indexOf('/'));
        if (!store.providers.get(provider)) {
          log.warn(
            `config: combo "${combo.name}" targets unknown provider "${provider}" (${target}); that target is skipped`,
          );
        }
      }
      store.combos.upsert(combo);
    }
    if (config.webSearch) {
      store.webSearch.set(keepingStoredKey(config.webSearch, store.webSearch.get()));
    }
    if (config.rules) {
      // The file's rules replace the saved ones, once what they route to is in the store.
      checkRuleUses(config.rules, storeTargets(store), 'rules');
      saveRules(store, config.rules);
    }
  })();

  const values: Record<string, unknown> = {};
  if (config.gateway?.timeouts)
    Object.assign(values, flattenSettings({ timeouts: config.gateway.timeouts }));
  if (config.resilience) {
    const flat = flattenSettings(config.resilience);
    const unknown = settings.unknownKeys(flat);
    for (const key of unknown) {
      log.warn(`config: resilience.${key} is not a setting this version knows; ignored`);
      delete flat[key];
    }
    Object.assign(values, flat);
  }
  if (Object.keys(values).length > 0) settings.update(values);
}
