import type { ClientFormat, RuleConfig, RuleWhen } from '../contract';
import { ValidationError } from '../validation-error';
import { parseTargetRef } from './combo';
import { array, boolean, identifier, integer, object, oneOf, optional, string } from './values';

export const CLIENT_FORMATS: readonly ClientFormat[] = [
  'anthropic',
  'openai-chat',
  'openai-responses',
  'gemini',
];

/** Rules are tried one by one on every request: a list this long is a mistake, not a policy. */
export const MAX_RULES = 100;
const MAX_TOKENS = 100_000_000;
const WHEN_FIELDS = [
  'model',
  'thinking',
  'minInputTokens',
  'maxInputTokens',
  'images',
  'webSearch',
  'tools',
  'client',
  'key',
] as const;
/** Printable, no spaces: a glob, a key name or a `use` travel in the decision header. */
const TOKEN = /^[^\s\p{Cc}]{1,200}$/u;

function token(value: unknown, field: string, what: string): string {
  return string(value, field, {
    pattern: TOKEN,
    hint: `must be ${what}: 1-200 characters without spaces`,
  });
}

function validateWhen(value: unknown, field: string): RuleWhen {
  const o = object(value ?? {}, field, WHEN_FIELDS);
  const when: RuleWhen = {};
  const model = optional(o.model, (v) => token(v, `${field}.model`, 'a model glob'));
  if (model !== undefined) when.model = model;
  for (const flag of ['thinking', 'images', 'webSearch', 'tools'] as const) {
    const b = optional(o[flag], (v) => boolean(v, `${field}.${flag}`));
    if (b !== undefined) when[flag] = b;
  }
  for (const bound of ['minInputTokens', 'maxInputTokens'] as const) {
    const n = optional(o[bound], (v) =>
      integer(v, `${field}.${bound}`, { min: 0, max: MAX_TOKENS }),
    );
    if (n !== undefined) when[bound] = n;
  }
  if (
    when.minInputTokens !== undefined &&
    when.maxInputTokens !== undefined &&
    when.minInputTokens > when.maxInputTokens
  ) {
    throw new ValidationError(`${field}.maxInputTokens`, 'must not be below minInputTokens');
  }
  const client = optional(o.client, (v) => oneOf(v, `${field}.client`, CLIENT_FORMATS));
  if (client !== undefined) when.client = client;
  const key = optional(o.key, (v) => token(v, `${field}.key`, 'a gateway key name'));
  if (key !== undefined) when.key = key;
  return when;
}

function validateRule(value: unknown, field: string): RuleConfig {
  const o = object(value, field, ['name', 'when', 'use']);
  return {
    name: identifier(o.name, `${field}.name`),
    when: validateWhen(o.when, `${field}.when`),
    use: token(o.use, `${field}.use`, 'a combo name or "provider/model"'),
  };
}

/** `rules`: at most MAX_RULES, names unique. Whether each `use` exists is `checkRuleUses`'s. */
export function validateRules(value: unknown, field: string): RuleConfig[] {
  const list = array(value, field);
  if (list.length > MAX_RULES) {
    throw new ValidationError(field, `must list at most ${MAX_RULES} rules (got ${list.length})`);
  }
  const rules = list.map((r, i) => validateRule(r, `${field}[${i}]`));
  const seen = new Set<string>();
  rules.forEach((r, i) => {
    if (seen.has(r.name)) throw new ValidationError(`${field}[${i}].name`, `duplicate "${r.name}"`);
    seen.add(r.name);
  });
  return rules;
}

/** What exists to route to: combos, and providers with the models they list (empty: any). */
export interface RuleTargets {
  hasCombo(name: string): boolean;
  providerModels(id: string): readonly string[] | undefined;
}

/** Why `use` names nothing that exists, or null when it names a combo or a provider's model. */
export function ruleUseProblem(use: string, known: RuleTargets): string | null {
  if (known.hasCombo(use)) return null;
  const ref = parseTargetRef(use);
  if (!ref) return `"${use}" is neither a combo nor "provider/model"`;
  const models = known.providerModels(ref.provider);
  if (models === undefined)
    return `"${use}": no combo of that name, and no provider "${ref.provider}"`;
  if (models.length > 0 && !models.includes(ref.model)) {
    return `"${use}": provider "${ref.provider}" does not list model "${ref.model}"`;
  }
  return null;
}

/** Refuses the first rule whose `use` names nothing, with its field. */
export function checkRuleUses(
  rules: readonly RuleConfig[],
  known: RuleTargets,
  field: string,
): void {
  rules.forEach((r, i) => {
    const problem = ruleUseProblem(r.use, known);
    if (problem) throw new ValidationError(`${field}[${i}].use`, problem);
  });
}
