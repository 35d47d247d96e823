// A request's prompt as short digests of its blocks, in the order providers cache a prefix:
// the tools, the system prompt, then each turn. Comparing two turns' digests names the first
// block that changed (cache-watch.ts). Any client format: the members are found by name.
//
// Read from the request's bytes: every turn of an agent's session is digested, and parsing a
// 150 KB history and serialising it again block by block cost about 2 ms a request, more than
// the rest of the gateway. A block is fingerprinted from its own bytes; only a block that holds
// a breakpoint is parsed, to leave the breakpoint out (agents move it every turn).
import { forEachElement, forEachMember, keyIs } from '../wire/json-members';

/** Blocks digested at most: a longer history is compared on its first turns only. */
const MAX_BLOCKS = 1_024;
/** Bytes kept of each block's digest: one session's prompt costs at most 6 KB of memory. */
export const DIGEST_BYTES = 6;

export interface PromptBlocks {
  /** DIGEST_BYTES per block, back to back. */
  digests: Buffer;
  /** A breakpoint of the client's asks for the 1-hour TTL (Anthropic's `ttl: "1h"`). */
  hourTtl: boolean;
  /** The client's `prompt_cache_retention`, when it gave one. */
  retention: unknown;
}

const key = (k: string) => Buffer.from(`"${k}"`);
const TURNS = [key('messages'), key('input'), key('contents')];
const SYSTEM = [key('system'), key('instructions'), key('systemInstruction')];
const TOOLS = key('tools');
const RETENTION = key('prompt_cache_retention');
const BREAKPOINT = Buffer.from('"cache_control"');
const NULL = Buffer.from('null');

type Span = readonly [number, number] | null;

/**
 * Digests of `[tools, system, ...turns]`, or null when `raw` is not a JSON object. Breakpoints
 * are left out of the digest: an agent moves them every turn without changing the prompt.
 */
export function promptBlocks(raw: Buffer): PromptBlocks | null {
  let tools: Span = null;
  const system: Span[] = [null, null, null];
  const turns: Span[] = [null, null, null];
  let retention: Span = null;
  const ok = forEachMember(raw, (ks, ke, vs, ve) => {
    const at = [vs, ve] as const;
    if (keyIs(raw, ks, ke, TOOLS)) tools = at;
    else if (keyIs(raw, ks, ke, RETENTION)) retention = at;
    for (let i = 0; i < 3; i++) {
      if (keyIs(raw, ks, ke, TURNS[i]!)) turns[i] = at;
      else if (keyIs(raw, ks, ke, SYSTEM[i]!)) system[i] = at;
    }
  });
  if (!ok) return null;
  const state = { hourTtl: false };
  const blocks: Buffer[] = [digest(raw, tools, state), digest(raw, present(raw, system), state)];
  const list = present(raw, turns);
  if (list && raw[list[0]] === 0x5b) {
    forEachElement(raw, list[0], (s, e) => {
      blocks.push(digest(raw, [s, e], state));
      return blocks.length < MAX_BLOCKS;
    });
  } else if (list) blocks.push(digest(raw, list, state));
  return {
    digests: Buffer.concat(blocks),
    hourTtl: state.hourTtl,
    retention: retention ? parsed(raw, retention) : undefined,
  };
}

/** The first of the members that is there and not `null` (as `a ?? b ?? c` reads them). */
function present(raw: Buffer, spans: readonly Span[]): Span {
  for (const s of spans) if (s && !raw.subarray(s[0], s[1]).equals(NULL)) return s;
  return null;
}

function digest(raw: Buffer, span: Span, state: { hourTtl: boolean }): Buffer {
  if (!span) return fingerprint(NULL);
  const bytes = raw.subarray(span[0], span[1]);
  if (bytes.indexOf(BREAKPOINT) < 0) return fingerprint(bytes);
  // Serialised again without its breakpoints: for a compact body (every SDK's), the same bytes a
  // later turn sends for this block once the breakpoint moved on.
  const unmarked = (k: string, value: unknown): unknown => {
    if (k !== 'cache_control') return value;
    if ((value as { ttl?: unknown } | null)?.ttl === '1h') state.hourTtl = true;
    return undefined;
  };
  const text = JSON.stringify(parsed(raw, span), unmarked) ?? 'null';
  return fingerprint(Buffer.from(text));
}

/** Of a block longer than twice this, its length, head and tail are fingerprinted. */
const EDGE_BYTES = 64;

/**
 * A block's fingerprint (DIGEST_BYTES of two 32-bit FNV-1a hashes): of its length, its first and
 * its last EDGE_BYTES. A hash per block of the whole history cost about 500 µs a request for a
 * 150 KB turn here (crypto's per-call cost, over a hundred blocks); this reads some 130 bytes a
 * block. A block that changes (a new turn, an edited file, a compacted history) changes its
 * length, its start or its end; an edit of the same length deep inside one only makes a loss
 * read as unexplained instead of "prefix changed". Not a defence against anyone: it only names
 * where a prompt changed.
 */
function fingerprint(bytes: Uint8Array): Buffer {
  const n = bytes.length;
  let a = 0x811c9dc5 ^ n;
  let b = 0x01000193 ^ Math.imul(n, 0x9e3779b1);
  const mix = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const c = bytes[i]!;
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
    }
  };
  if (n <= 2 * EDGE_BYTES) mix(0, n);
  else {
    mix(0, EDGE_BYTES);
    mix(n - EDGE_BYTES, n);
  }
  const out = Buffer.allocUnsafe(8);
  out.writeInt32BE(a | 0, 0);
  out.writeInt32BE(b | 0, 4);
  return out.subarray(0, DIGEST_BYTES);
}

function parsed(raw: Buffer, span: readonly [number, number]): unknown {
  try {
    return JSON.parse(raw.toString('utf8', span[0], span[1]));
  } catch {
    return undefined;
  }
}
