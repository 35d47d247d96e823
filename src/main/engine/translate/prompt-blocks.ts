// A request's prompt as short digests of its blocks, in the order providers cache a prefix:
// the tools, the system prompt, then each turn. Comparing two turns' digests names the first
// block that changed (cache-watch.ts). Any client format: the members are found by name.
import { createHash } from 'node:crypto';
import type { Json } from './ir';

/** Blocks digested at most: a longer history is compared on its first turns only. */
const MAX_BLOCKS = 1_024;
/** Bytes kept of each block's digest: one session's prompt costs at most 6 KB of memory. */
export const DIGEST_BYTES = 6;

export interface PromptBlocks {
  /** DIGEST_BYTES per block, back to back. */
  digests: Buffer;
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
  const turns = body.messages ?? body.input ?? body.contents;
  const list = Array.isArray(turns) ? turns : turns === undefined ? [] : [turns];
  const count = 2 + Math.min(list.length, MAX_BLOCKS - 2);
  const digests = Buffer.allocUnsafe(count * DIGEST_BYTES);
  const put = (i: number, v: unknown): void => {
    createHash('sha1')
      .update(JSON.stringify(v, unmarked) ?? '')
      .digest()
      .copy(digests, i * DIGEST_BYTES, 0, DIGEST_BYTES);
  };
  put(0, body.tools ?? null);
  put(1, body.system ?? body.instructions ?? body.systemInstruction ?? null);
  for (let i = 2; i < count; i++) put(i, list[i - 2]);
  return { digests, hourTtl };
}
