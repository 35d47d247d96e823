// A per-key prompt-prefix cache for the fake upstream (issue 30), shaped like the real ones:
// - Anthropic: a prefix is written only at a `cache_control` breakpoint (TTL 5 min or `1h`) and
//   read back at the longest cached block boundary at most 20 blocks before a breakpoint;
//   prefixes shorter than 1 024 tokens are not cached. The prefix runs tools, system, messages.
// - OpenAI-style (Chat, Responses): automatic; every prefix of 1 024+ tokens is cached, and a
//   request reads its longest cached prefix, in steps of 128 tokens.
// Tokens are the fake's usual estimate (about four characters each) of each block's JSON, with
// `cache_control` left out, so moving a breakpoint does not change the prefix.

import { createHash } from 'node:crypto';

type Json = Record<string, unknown>;

const MIN_CACHEABLE = 1024;
const LOOKBACK_BLOCKS = 20;
const OPENAI_STEP = 128;
const FIVE_MINUTES = 5 * 60_000;
const HOUR = 60 * 60_000;

export interface CacheCounts {
  /** Tokens read from the cache. */
  read: number;
  /** Tokens written to the cache (Anthropic only; OpenAI does not report writes). */
  written: number;
}

interface Block {
  tokens: number;
  /** The breakpoint's TTL when the block carries `cache_control`, else null. */
  ttlMs: number | null;
  canonical: string;
}

const tokensOf = (s: string): number => Math.max(1, Math.ceil(s.length / 4));

function withoutMark(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const { cache_control: _mark, ...rest } = v as Json;
  return rest;
}

function block(v: unknown, role = ''): Block {
  const mark = (v as Json | null)?.cache_control as Json | undefined;
  const canonical = role + JSON.stringify(withoutMark(v));
  return {
    tokens: tokensOf(canonical),
    ttlMs: mark ? (mark.ttl === '1h' ? HOUR : FIVE_MINUTES) : null,
    canonical,
  };
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function anthropicBlocks(body: Json): Block[] {
  const out = list(body.tools).map((t) => block(t));
  const system =
    typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : list(body.system);
  for (const s of system) out.push(block(s));
  for (const m of list(body.messages)) {
    const msg = m as Json;
    const content =
      typeof msg.content === 'string' ? [{ type: 'text', text: msg.content }] : list(msg.content);
    for (const b of content) out.push(block(b, String(msg.role)));
  }
  return out;
}

function openaiBlocks(body: Json): Block[] {
  const out = list(body.tools).map((t) => block(t));
  if (typeof body.instructions === 'string') out.push(block(body.instructions, 'instructions'));
  const turns = body.messages ?? body.input;
  if (typeof turns === 'string') out.push(block(turns, 'user'));
  for (const m of list(turns)) out.push(block(m));
  return out;
}

/** Cumulative prefix digests and token counts, one per block boundary. */
function prefixes(model: string, blocks: Block[]): { hash: string[]; tokens: number[] } {
  const hash: string[] = [];
  const tokens: number[] = [];
  let h = createHash('sha256').update(model).digest('hex');
  let n = 0;
  for (const b of blocks) {
    h = createHash('sha256').update(h).update(b.canonical).digest('hex');
    n += b.tokens;
    hash.push(h);
    tokens.push(n);
  }
  return { hash, tokens };
}

export class FakePromptCache {
  /** `key|prefix digest` → when it expires. */
  private readonly entries = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Total prompt tokens of a request as this cache counts them. */
  promptTokens(route: 'anthropic' | 'openai', body: Json): number {
    const blocks = route === 'anthropic' ? anthropicBlocks(body) : openaiBlocks(body);
    return blocks.reduce((sum, b) => sum + b.tokens, 0);
  }

  anthropic(key: string, body: Json): CacheCounts {
    const blocks = anthropicBlocks(body);
    const model = String(body.model);
    const { hash, tokens } = prefixes(model, blocks);
    const now = this.now();
    const marks = blocks.flatMap((b, i) => (b.ttlMs !== null ? [i] : []));
    let hit = -1;
    for (const m of marks) {
      for (let j = m; j >= 0 && j > m - LOOKBACK_BLOCKS && j > hit; j--) {
        if (this.live(key, hash[j]!, now)) {
          hit = j;
          break;
        }
      }
    }
    const read = hit >= 0 ? tokens[hit]! : 0;
    let written = 0;
    for (const m of marks) {
      if (tokens[m]! < MIN_CACHEABLE) continue;
      this.entries.set(`${key}|${hash[m]}`, now + blocks[m]!.ttlMs!);
      if (m > hit) written = Math.max(written, tokens[m]! - read);
    }
    if (hit >= 0)
      this.entries.set(
        `${key}|${hash[hit]}`,
        Math.max(this.expiry(key, hash[hit]!), now + FIVE_MINUTES),
      );
    return { read, written };
  }

  openai(key: string, body: Json): CacheCounts {
    const { hash, tokens } = prefixes(String(body.model), openaiBlocks(body));
    const now = this.now();
    let read = 0;
    for (let j = hash.length - 1; j >= 0; j--) {
      if (this.live(key, hash[j]!, now)) {
        read = Math.floor(tokens[j]! / OPENAI_STEP) * OPENAI_STEP;
        break;
      }
    }
    for (let j = 0; j < hash.length; j++) {
      if (tokens[j]! >= MIN_CACHEABLE) this.entries.set(`${key}|${hash[j]}`, now + FIVE_MINUTES);
    }
    return { read: read >= MIN_CACHEABLE ? read : 0, written: 0 };
  }

  clear(): void {
    this.entries.clear();
  }

  private expiry(key: string, hash: string): number {
    return this.entries.get(`${key}|${hash}`) ?? 0;
  }

  private live(key: string, hash: string, now: number): boolean {
    return this.expiry(key, hash) > now;
  }
}
