// Thinking and effort clamp (issue 17): when a provider rejects the requested thinking budget or
// effort level, the request is retried with the highest it accepts — from the error text when it
// lists or bounds it, else one level lower each time (the caller allows two such retries). Pure.

import { EFFORT_LEVELS, type ErrorText, type ShapeFix } from './fix';
import { applyFix, valueAt } from './surgery';

/** Where each API carries the effort level. */
const EFFORT_PATHS = ['reasoning_effort', 'reasoning.effort', 'output_config.effort'] as const;
const BUDGET = 'thinking.budget_tokens';

/** The quoted values of "Supported values are: 'low', 'medium', and 'high'." */
function listedLevels(message: string): string[] {
  const m = /Supported values are:?\s*(.+)$/i.exec(message);
  if (!m) return [];
  const levels = [...m[1]!.matchAll(/'([\w-]+)'/g)].map((x) => x[1]!);
  return levels.filter((l) => (EFFORT_LEVELS as readonly string[]).includes(l));
}

/** The levels strictly below `level` (without `none`, which turns reasoning off). */
function levelsBelow(level: string): string[] {
  const i = (EFFORT_LEVELS as readonly string[]).indexOf(level);
  return i <= 1 ? [] : EFFORT_LEVELS.slice(1, i);
}

function effortFix(e: ErrorText, body: Record<string, unknown>): ShapeFix | null {
  const text = e.message;
  const param =
    EFFORT_PATHS.find(
      (p) => e.param === p || text.includes(`'${p}'`) || text.includes(`\`${p}\``),
    ) ??
    (/\beffort\b/i.test(text)
      ? EFFORT_PATHS.find((p) => valueAt(body, p) !== undefined)
      : undefined);
  if (!param || !/unsupported|not supported|invalid|must be one of|does not support/i.test(text))
    return null;
  const current = valueAt(body, param);
  if (typeof current !== 'string') return null;
  // "Unsupported value: 'reasoning_effort' does not support 'minimal' with this model. Supported
  // values are: 'low', 'medium', and 'high'." (OpenAI, and the Responses API's 'reasoning.effort')
  const listed = listedLevels(text);
  const allowed = listed.length > 0 ? listed : levelsBelow(current);
  return allowed.length > 0 ? { kind: 'levels', mechanism: 'effort', param, allowed } : null;
}

function budgetFix(e: ErrorText): ShapeFix | null {
  const text = e.message;
  // Anthropic: "`max_tokens` must be greater than `thinking.budget_tokens`."
  if (/`?max_tokens`? must be greater than `?thinking\.budget_tokens`?/.test(text))
    return { kind: 'below', mechanism: 'effort', param: BUDGET, than: 'max_tokens' };
  // Anthropic: "thinking.budget_tokens: Input should be greater than or equal to 1024".
  const m = /thinking\.budget_tokens: Input should be (less|greater) than or equal to (\d+)/.exec(
    text,
  );
  if (m) {
    const bound = m[1] === 'less' ? 'max' : 'min';
    return { kind: 'range', mechanism: 'effort', param: BUDGET, [bound]: Number(m[2]) } as ShapeFix;
  }
  return null;
}

/** The clamp a 400's text calls for, if it is about the thinking budget or effort and changes `body`. */
export function decideEffortFix(e: ErrorText, body: Record<string, unknown>): ShapeFix | null {
  const fix = budgetFix(e) ?? effortFix(e, body);
  return fix && applyFix(body, fix) ? fix : null;
}
