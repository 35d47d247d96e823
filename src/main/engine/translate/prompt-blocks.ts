// A request's prompt as short digests of its blocks, in the order providers cache a prefix:
// the tools, the system prompt, then each turn. Comparing two turns' digests names the first
// block that changed (cache-watch.ts). Any client format: the members are found by name.
import { createHash } from 'node:crypto';
import type { Json } from './ir';

/** Turns digested at most: a longer history is compared on its first turns only. */
const MAX_BLOCKS = 2_000;

export interface PromptBlocks {
  digests: string[];
  /** A breakpoint of the client's asks for the 1-hour TTL (Anthropic's `ttl: "1h"`). */
  hourTtl: boolean;
}

/**
 * Digests of `[tools, system, ...turns]`. Breakpoints are left out of the digest: an agent
 * moves them every turn without changing the prompt.
 */
export function promptBlocks(body: Json): PromptBlocks {
  let hourTtl = false;
  const unmarked = (key: string, value: unknown): unknown => {
    if (key !== 'cache_control') return value;
    if ((value as Json | null)?.ttl === '1h') hourTtl = true;
    return undefined;
  };
  const digest = (v: unknown): string =>
    createHash('sha1')
      .update(JSON.stringify(v, unmarked) ?? '')
      .digest('base64')
      .slice(0, 12);
  const turns = body.messages ?? body.input ?? body.contents;
  const list = Array.isArray(turns) ? turns : turns === undefined ? [] : [turns];
  const digests = [
    digest(body.tools ?? null),
    digest(body.system ?? body.instructions ?? body.systemInstruction ?? null),
  ];
  for (let i = 0; i < list.length && i < MAX_BLOCKS; i++) digests.push(digest(list[i]));
  return { digests, hourTtl };
}
