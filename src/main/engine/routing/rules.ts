import type { ClientFormat, RuleConfig, RuleTestResult, RuleWhen } from '../../../shared/contract';

/**
 * What the rules may ask of a request. The first three are known before the body is read; the
 * rest parse or count it, so they are functions, called only by a rule that asks, once each.
 */
export interface RequestFacts {
  readonly model: string;
  readonly client: ClientFormat;
  readonly key: string | null;
  thinking(): boolean;
  images(): boolean;
  webSearch(): boolean;
  /**
   * The search is asked for only with a search tool (not Chat's `web_search_options`): the
   * gateway can run it for any model that calls functions (docs/web-search.md).
   */
  webSearchByTool(): boolean;
  tools(): boolean;
  inputTokens(): number;
}

/** One condition: null when it holds, else why not. */
type Check = (facts: RequestFacts) => string | null;

export interface CompiledRule {
  readonly name: string;
  readonly use: string;
  readonly when: RuleWhen;
  /** Cheapest first: the model, client and key before anything that reads the body. */
  readonly checks: readonly Check[];
}

/** The rules of one catalog, compiled once; a catalog without rules has none (`null`). */
export type RuleBook = readonly CompiledRule[];

/** `claude-*haiku*` as an anchored, case-insensitive expression (`*` any run, `?` one). */
export function globPattern(glob: string): RegExp {
  const body = glob
    .split('')
    .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, 'is');
}

const yesNo = (b: boolean) => (b ? 'true' : 'false');

function flag(name: keyof RequestFacts & keyof RuleWhen, want: boolean, label: string): Check {
  return (f) => {
    const got = (f[name] as () => boolean)();
    if (got === want) return null;
    return want ? `no ${label}` : `${label} present`;
  };
}

function checksOf(when: RuleWhen): Check[] {
  const checks: Check[] = [];
  if (when.model !== undefined) {
    const pattern = globPattern(when.model);
    const glob = when.model;
    checks.push((f) => (pattern.test(f.model) ? null : `model ${f.model} is not ${glob}`));
  }
  if (when.client !== undefined) {
    const client = when.client;
    checks.push((f) => (f.client === client ? null : `client is ${f.client}, not ${client}`));
  }
  if (when.key !== undefined) {
    const key = when.key;
    checks.push((f) =>
      f.key === key ? null : `key is ${f.key === null ? 'none' : f.key}, not ${key}`,
    );
  }
  if (when.webSearch !== undefined)
    checks.push(flag('webSearch', when.webSearch, 'web search tool'));
  if (when.tools !== undefined) checks.push(flag('tools', when.tools, 'tools'));
  if (when.thinking !== undefined) {
    const want = when.thinking;
    checks.push((f) =>
      f.thinking() === want ? null : `thinking is ${yesNo(!want)}, not ${yesNo(want)}`,
    );
  }
  if (when.images !== undefined) checks.push(flag('images', when.images, 'images'));
  const min = when.minInputTokens;
  const max = when.maxInputTokens;
  if (min !== undefined || max !== undefined) {
    checks.push((f) => {
      const n = f.inputTokens();
      if (min !== undefined && n < min) return `~${n} tokens in, under ${min}`;
      if (max !== undefined && n > max) return `~${n} tokens in, over ${max}`;
      return null;
    });
  }
  return checks;
}

export function compileRules(rules: readonly RuleConfig[]): RuleBook | null {
  if (rules.length === 0) return null;
  return rules.map((r) => ({ name: r.name, use: r.use, when: r.when, checks: checksOf(r.when) }));
}

function missOf(rule: CompiledRule, facts: RequestFacts): string | null {
  for (const check of rule.checks) {
    const why = check(facts);
    if (why !== null) return why;
  }
  return null;
}

/** The first rule whose conditions all hold, or null. */
export function pickRule(book: RuleBook, facts: RequestFacts): CompiledRule | null {
  for (const rule of book) if (missOf(rule, facts) === null) return rule;
  return null;
}

/** `pickRule` with the reason each earlier rule missed, for the "try a request" tools. */
export function explainRules(
  book: RuleBook | null,
  facts: RequestFacts,
): Pick<RuleTestResult, 'matched' | 'missed'> {
  const missed: RuleTestResult['missed'] = [];
  for (const rule of book ?? []) {
    const why = missOf(rule, facts);
    if (why === null) return { matched: { name: rule.name, use: rule.use }, missed };
    missed.push({ name: rule.name, why });
  }
  return { matched: null, missed };
}
