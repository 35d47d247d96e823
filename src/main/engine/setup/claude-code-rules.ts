// The rule set `breakwater init` and the setup wizard offer for Claude Code: its background
// requests (titles, summaries) on a Haiku model go to the cheapest target, and turns whose
// context has grown large to the target with the largest window. Only what the model table
// knows is used; with nothing known there is nothing to offer.

import type { ModelEntry, ModelSpec, RuleConfig } from '../../../shared/contract';

/** Prompts past this estimate count as long context (Claude Code's turns grow past 100k). */
export const LONG_CONTEXT_TOKENS = 60_000;

type SpecOf = (provider: string, model: string) => ModelSpec;

/** What the rule set needs of a provider: a config entry or the live catalog's. */
export interface RuleSetProvider {
  id: string;
  models: readonly ModelEntry[];
  enabled?: boolean;
}

function targets(providers: readonly RuleSetProvider[], specOf: SpecOf) {
  return providers
    .filter((p) => p.enabled !== false)
    .flatMap((p) =>
      p.models.map((m) => {
        const id = typeof m === 'string' ? m : m.id;
        return {
          ref: `${p.id}/${id}`,
          spec: { ...specOf(p.id, id), ...(typeof m === 'string' ? {} : m) },
        };
      }),
    );
}

/** The rules to propose, or none when no target has a known price or window. */
export function claudeCodeRules(
  providers: readonly RuleSetProvider[],
  specOf: SpecOf,
): RuleConfig[] {
  const all = targets(providers, specOf);
  const priced = all.filter((t) => t.spec.price !== undefined);
  const windowed = all.filter((t) => t.spec.contextWindow !== undefined);
  const rules: RuleConfig[] = [];
  const cheapest = priced.sort((a, b) => a.spec.price!.input - b.spec.price!.input)[0];
  if (cheapest) {
    rules.push({ name: 'background', when: { model: 'claude-*haiku*' }, use: cheapest.ref });
  }
  const widest = windowed.sort((a, b) => b.spec.contextWindow! - a.spec.contextWindow!)[0];
  if (widest) {
    rules.push({
      name: 'long-context',
      when: { minInputTokens: LONG_CONTEXT_TOKENS },
      use: widest.ref,
    });
  }
  return rules;
}
