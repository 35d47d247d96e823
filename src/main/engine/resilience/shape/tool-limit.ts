// Tool-count limit (issue 17): a 400 that states a maximum number of tools is remembered per
// provider and model; a later request with more tools skips that target (fails over to one
// without the limit) or, with none left, is answered with a clear 400 before any upstream call.
// Pure: error text in, the limit out; a request in, its tool count out.
import type { ErrorText, ShapeFix } from './fix';

const WORDINGS: readonly RegExp[] = [
  // OpenAI: "Invalid 'tools': array too long. Expected an array with maximum length 128, but got
  // an array with length 129 instead."
  /'tools'.*maximum length (\d+)/i,
  // Anthropic and pydantic servers: "tools: List should have at most 128 items after validation".
  /^tools: List should have at most (\d+) items?/i,
  // JSON-schema validators of OpenAI-compatible servers: "'tools' : maximum number of items is 128".
  /'?tools'?\s*:?\s*maximum number of items is (\d+)/i,
  // Free text: "too many tools … at most 64", "a maximum of 64 tools/functions".
  /too many (?:tools|functions)\D{0,40}(\d+)/i,
  /maximum of (\d+) (?:tools|functions|function declarations)/i,
];

/** The maximum number of tools a 400's text states, or null. */
export function readToolLimit(e: ErrorText): number | null {
  for (const re of WORDINGS) {
    const m = re.exec(e.message);
    if (m) return Number(m[1]);
  }
  return null;
}

/** The fix that remembers a tool limit. */
export function toolLimitFix(max: number): ShapeFix {
  return { kind: 'maxTools', mechanism: 'tool_limit', param: 'tools', max };
}

type Json = Record<string, unknown>;

/** Tools a request offers, in any of the APIs' shapes (Gemini groups functions per tool). */
export function toolCount(body: Json): number {
  const tools = body.tools;
  if (!Array.isArray(tools)) return 0;
  let n = 0;
  for (const t of tools) {
    const decls = (t as Json | null)?.functionDeclarations;
    n += Array.isArray(decls) ? decls.length : 1;
  }
  return n;
}
