import type { Catalog } from '../../config/catalog';
import { requestFacts } from '../../routing/request-facts';
import {
  type CompiledRule,
  compileRules,
  pickRule,
  type RequestFacts,
  type RuleBook,
} from '../../routing/rules';
import { bodyOf, type RequestContext } from './context';
import { inputTokensOf, irOf } from './request-ir';

// Compiled once per catalog (a config change builds a new catalog).
const books = new WeakMap<Catalog, RuleBook | null>();

export function bookOf(catalog: Catalog): RuleBook | null {
  let book = books.get(catalog);
  if (book === undefined) {
    book = compileRules(catalog.rules);
    books.set(catalog, book);
  }
  return book;
}

/** What rules and capabilities may ask of this request, read from its own parse and estimate. */
export function factsOf(ctx: RequestContext): RequestFacts {
  return requestFacts({
    model: ctx.model,
    client: ctx.endpoint.format,
    key: ctx.key?.name ?? null,
    body: () => bodyOf(ctx),
    ir: () => irOf(ctx),
    mayReason: ctx.mayReason,
    inputTokens: () => inputTokensOf(ctx),
  });
}

/** The rule the request takes, or null; the caller has checked that the catalog has rules. */
export function ruleFor(ctx: RequestContext, facts: RequestFacts): CompiledRule | null {
  const book = bookOf(ctx.catalog);
  return book ? pickRule(book, facts) : null;
}
