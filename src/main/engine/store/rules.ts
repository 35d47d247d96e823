// The routing rules, kept as one list under a store key: they are replaced whole
// (`PUT /api/rules`), read once per catalog, and need no table of their own.

import type { RuleConfig } from '../../../shared/contract';
import { validateRules } from '../../../shared/schema/rules';
import type { Store } from './';

/** Store key of the rules (not a registry setting: the catalog reads it). */
export const RULES_KEY = 'routing.rules';

/** The saved rules; a value this version cannot read counts as none rather than stopping. */
export function storedRules(store: Pick<Store, 'settings'>): RuleConfig[] {
  const saved = store.settings.get(RULES_KEY);
  if (saved === undefined) return [];
  try {
    return validateRules(saved, 'rules');
  } catch {
    return [];
  }
}

export function saveRules(store: Pick<Store, 'settings'>, rules: readonly RuleConfig[]): void {
  store.settings.set(RULES_KEY, rules);
}
