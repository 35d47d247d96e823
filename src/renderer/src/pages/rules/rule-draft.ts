import type { RuleConfig } from '../../../../shared/contract';
import { validateRules } from '../../../../shared/schema/rules';
import { ValidationError } from '../../../../shared/validation-error';

/** A rule as the form holds it: its conditions as JSON text. */
export interface RuleDraft {
  name: string;
  use: string;
  when: string;
}

export function draftOf(rule: RuleConfig): RuleDraft {
  return { name: rule.name, use: rule.use, when: JSON.stringify(rule.when) };
}

export const EMPTY_RULE: RuleDraft = { name: '', use: '', when: '{}' };

/** The drafts as rules, checked by the same schema as the config file and the API. */
export function rulesOf(drafts: readonly RuleDraft[]): { rules: RuleConfig[] } | { error: string } {
  const raw: unknown[] = [];
  for (const [i, d] of drafts.entries()) {
    let when: unknown;
    try {
      when = JSON.parse(d.when || '{}');
    } catch {
      return { error: `rules[${i}].when: is not JSON (e.g. {"model": "claude-*haiku*"})` };
    }
    raw.push({ name: d.name.trim(), use: d.use.trim(), when });
  }
  try {
    return { rules: validateRules(raw, 'rules') };
  } catch (err) {
    if (err instanceof ValidationError) return { error: err.message };
    throw err;
  }
}

/** The list with item `i` moved by `by` places (kept inside the list). */
export function moved<T>(list: readonly T[], i: number, by: number): T[] {
  const j = Math.max(0, Math.min(list.length - 1, i + by));
  const out = [...list];
  const [item] = out.splice(i, 1);
  out.splice(j, 0, item as T);
  return out;
}
