// The routing rules' admin parts: what a rule may name, and the "try a request" check that says
// which rule a request would take (the Rules page and `breakwater rules test`).

import type { RuleTestResult } from '../../../shared/contract';
import { CLIENT_FORMATS, type RuleTargets } from '../../../shared/schema/rules';
import { isPlainObject, object, oneOf, optional, string } from '../../../shared/schema/values';
import type { Catalog } from '../config/catalog';
import { ValidationError } from '../config/validate';
import { requestFacts } from '../routing/request-facts';
import { compileRules, explainRules } from '../routing/rules';
import { estimateInputTokens, parseRequest } from '../translate';

/** What a rule's `use` may name in a running gateway. */
export function catalogTargets(catalog: Catalog): RuleTargets {
  return {
    hasCombo: (name) => catalog.combos.has(name),
    providerModels: (id) => catalog.providers.get(id)?.models,
  };
}

/** `{ request, client?, key? }` against the catalog's rules. */
export function testRules(catalog: Catalog, input: unknown): RuleTestResult {
  const o = object(input, '', ['request', 'client', 'key']);
  if (!isPlainObject(o.request)) throw new ValidationError('request', 'must be a JSON object');
  const body = o.request;
  const model = string(body.model, 'request.model');
  const client = oneOf(o.client ?? 'anthropic', 'client', CLIENT_FORMATS);
  const key = optional(o.key, (v) => string(v, 'key')) ?? null;
  const ir = parseRequest(client, body).value;
  const facts = requestFacts({
    model,
    client,
    key,
    body: () => body,
    ir: () => ir,
    inputTokens: () => estimateInputTokens(ir),
  });
  const { matched, missed } = explainRules(compileRules(catalog.rules), facts);
  return {
    matched,
    missed,
    seen: {
      model,
      client,
      key,
      thinking: facts.thinking(),
      images: facts.images(),
      webSearch: facts.webSearch(),
      tools: facts.tools(),
      inputTokens: facts.inputTokens(),
    },
  };
}
