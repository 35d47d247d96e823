import type { ClientFormat } from '../../../../shared/contract';
import type { Catalog } from '../../config/catalog';
import { type FactSources, requestFacts } from '../../routing/request-facts';
import {
  type CompiledRule,
  compileRules,
  pickRule,
  type RequestFacts,
  type RuleBook,
} from '../../routing/rules';
import type { IrRequest } from '../../translate/ir';
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
  return requestFacts(new ContextSources(ctx));
}

/** The facts' sources, read from the context when asked (one object, no closures). */
class ContextSources implements FactSources {
  readonly model: string;
  readonly client: ClientFormat;
  readonly key: string | null;
  readonly mayReason: boolean;

  constructor(private readonly ctx: RequestContext) {
    this.model = ctx.model;
    this.client = ctx.endpoint.format;
    this.key = ctx.key?.name ?? null;
    this.mayReason = ctx.mayReason;
  }

  body(): Record<string, unknown> {
    return bodyOf(this.ctx);
  }

  ir(): IrRequest {
    return irOf(this.ctx);
  }

  inputTokens(): number {
    return inputTokensOf(this.ctx);
  }
}

/** The rule the request takes, or null; the caller has checked that the catalog has rules. */
export function ruleFor(ctx: RequestContext, facts: RequestFacts): CompiledRule | null {
  const book = bookOf(ctx.catalog);
  return book ? pickRule(book, facts) : null;
}
