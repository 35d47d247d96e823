// Prompt-cache breakpoints for an Anthropic Messages request made from a client format that
// has no way to write them (Chat, Responses, Gemini). Anthropic caches only up to blocks marked
// `cache_control`, so without these every turn of a long session is billed in full. Placed as
// agents place them (docs/translation.md): the newest turn, so the next turn reads everything
// before it; the end of the system prompt and of the tools, which outlive a trimmed history;
// and the turn before the newest, which the previous request wrote, so it is read even when the
// newest turn added more blocks than Anthropic's lookback (20 blocks) reaches.
import { arr, type Json, obj } from './ir';

/** Anthropic accepts at most this many breakpoints in one request. */
export const MAX_BREAKPOINTS = 4;

export type CacheTtl = '5m' | '1h';

/**
 * The TTL a client's `prompt_cache_retention` asks for: `24h` is longer than Anthropic keeps a
 * prefix, so it gets the longest there is (1 h); anything else the default 5 minutes.
 */
export function ttlFor(retention: string | null): CacheTtl {
  return retention === '24h' ? '1h' : '5m';
}

/** Blocks that cannot carry a breakpoint (Anthropic refuses `cache_control` on thinking). */
function markable(block: Json | null): block is Json {
  return block !== null && block.type !== 'thinking' && block.type !== 'redacted_thinking';
}

/** The last block of a message that can carry a breakpoint, or null. */
function lastMarkable(message: unknown): Json | null {
  const content = arr(obj(message)?.content);
  for (let i = content.length - 1; i >= 0; i--) {
    const b = obj(content[i]);
    if (markable(b)) return b;
  }
  return null;
}

/** Indexes of the user turns, newest first (tool results are user turns too). */
function userTurns(messages: unknown[]): number[] {
  const out: number[] = [];
  for (let i = messages.length - 1; i >= 0 && out.length < 2; i--) {
    if (obj(messages[i])?.role === 'user') out.push(i);
  }
  return out;
}

function hasMarks(body: Json): boolean {
  const marked = (b: unknown) => obj(b)?.cache_control !== undefined;
  return (
    arr(body.tools).some(marked) ||
    arr(body.system).some(marked) ||
    arr(body.messages).some((m) => arr(obj(m)?.content).some(marked))
  );
}

/**
 * Adds breakpoints to an emitted Anthropic request, in place, at most MAX_BREAKPOINTS; answers
 * how many. A request that carries the client's own (a Chat client may put `cache_control` on a
 * content part) keeps exactly those: the client manages its cache, and a mark of ours with
 * another TTL could break Anthropic's rule that 1-hour marks come before 5-minute ones. A
 * string system prompt becomes one text block, the only form that carries a mark.
 */
export function addBreakpoints(body: Json, ttl: CacheTtl): number {
  if (hasMarks(body)) return 0;
  let budget = MAX_BREAKPOINTS;
  const mark: Json = ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  let added = 0;
  const put = (block: Json | null): void => {
    if (budget <= 0 || !block) return;
    block.cache_control = { ...mark };
    budget--;
    added++;
  };
  const messages = arr(body.messages);
  const [newest, previous] = userTurns(messages);
  if (newest !== undefined) put(lastMarkable(messages[newest]));
  if (typeof body.system === 'string' && body.system !== '' && budget > 0) {
    body.system = [{ type: 'text', text: body.system }];
  }
  const system = arr(body.system);
  put(obj(system.at(-1)));
  const tools = arr(body.tools);
  put(obj(tools.at(-1)));
  if (previous !== undefined) put(lastMarkable(messages[previous]));
  return added;
}
