import { forEachMember, keyIs, lastMember, lastNewline, QUOTE } from '../wire/json-members';

/** Token counts reported by an upstream; null where the upstream did not say. */
export interface Usage {
  /** Prompt tokens as reported: with cache reads and writes, unless `cacheApart`. */
  inputTokens: number | null;
  outputTokens: number | null;
  /** Prompt tokens read from the provider's prompt cache. */
  cachedTokens: number | null;
  /** Prompt tokens written to the cache (Anthropic's `cache_creation_input_tokens`). */
  cacheWriteTokens: number | null;
  /** Output tokens spent on reasoning (already part of `outputTokens`). */
  reasoningTokens: number | null;
  /**
   * Anthropic's answers count cache reads and writes apart from `input_tokens`; OpenAI's and
   * the translation IR's include them (see `promptTokens`).
   */
  cacheApart?: true;
}

type Json = Record<string, unknown>;

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function obj(v: unknown): Json | null {
  return typeof v === 'object' && v !== null ? (v as Json) : null;
}

/**
 * Gemini's output: `candidatesTokenCount` leaves out the thoughts, which the other formats (and
 * the price of output) count in.
 */
function geminiOutput(u: Json): number | null {
  const candidates = num(u.candidatesTokenCount);
  const thoughts = num(u.thoughtsTokenCount);
  return candidates === null && thoughts === null ? null : (candidates ?? 0) + (thoughts ?? 0);
}

/**
 * Reads usage from any of the four formats' usage objects (Chat: prompt/completion tokens;
 * Responses and Anthropic: input/output tokens; Gemini's `usageMetadata`: token counts, its
 * prompt count with the cached part in), merging into what is known so far: Anthropic streams
 * report input tokens in `message_start` and output tokens in `message_delta`, Gemini streams
 * repeat the running counts in every chunk.
 */
export function mergeUsage(into: Usage, usageValue: unknown): void {
  const u = obj(usageValue);
  if (!u) return;
  const input = num(u.prompt_tokens) ?? num(u.input_tokens) ?? num(u.promptTokenCount);
  const output = num(u.completion_tokens) ?? num(u.output_tokens) ?? geminiOutput(u);
  const anthropicRead = num(u.cache_read_input_tokens);
  const cacheWrite = num(u.cache_creation_input_tokens);
  const cached =
    num(obj(u.prompt_tokens_details)?.cached_tokens) ??
    num(obj(u.input_tokens_details)?.cached_tokens) ??
    anthropicRead ??
    num(u.cachedContentTokenCount);
  const reasoning =
    num(obj(u.completion_tokens_details)?.reasoning_tokens) ??
    num(obj(u.output_tokens_details)?.reasoning_tokens) ??
    num(u.thoughtsTokenCount);
  if (anthropicRead !== null || cacheWrite !== null) into.cacheApart = true;
  if (input !== null) into.inputTokens = input;
  if (output !== null) into.outputTokens = output;
  if (cached !== null) into.cachedTokens = cached;
  if (cacheWrite !== null) into.cacheWriteTokens = cacheWrite;
  if (reasoning !== null) into.reasoningTokens = reasoning;
}

/** All prompt tokens, cache reads and writes included, whichever way the format counts them. */
export function promptTokens(u: Usage): number | null {
  if (u.inputTokens === null || !u.cacheApart) return u.inputTokens;
  return u.inputTokens + (u.cachedTokens ?? 0) + (u.cacheWriteTokens ?? 0);
}

/** Finds the `usage` object (Gemini: `usageMetadata`) of a whole JSON response or of one stream event. */
export function usageOf(event: Json): unknown {
  if (event.usage !== undefined) return event.usage;
  if (event.usageMetadata !== undefined) return event.usageMetadata;
  const inner = obj(event.response) ?? obj(event.message);
  return inner?.usage;
}

/**
 * The `usage` of a whole JSON answer, as `usageOf(JSON.parse(raw))` would find it: only the
 * top-level `usage` member (`key`: Gemini's `usageMetadata`) is parsed, not the answer around
 * it, and when it is the last member (Chat's and Anthropic's answers) it is found from the end
 * without walking the rest. Answers without one (the rare `response.usage` / `message.usage`
 * shapes, or none at all) are parsed whole. A body whose only flaw lies outside `usage` still
 * has it counted, and so does one that is not JSON but ends with what reads as a last top-level
 * usage member (two answers run together, a broken member before it); the upstream did report
 * those tokens. Undefined otherwise when the answer is not JSON.
 */
export function usageOfBody(raw: Buffer, key: UsageKey = USAGE_KEY): unknown {
  let value = lastMember(raw, key.quoted);
  const wellFormed =
    value !== null ||
    forEachMember(raw, (keyStart, keyEnd, valueStart, valueEnd) => {
      if (keyIs(raw, keyStart, keyEnd, key.quoted)) value = [valueStart, valueEnd];
    });
  try {
    if (wellFormed && value) return JSON.parse(raw.toString('utf8', value[0], value[1]));
    const parsed = JSON.parse(raw.toString('utf8')) as unknown;
    return obj(parsed) ? usageOf(parsed as Json) : undefined;
  } catch {
    return undefined;
  }
}

export function emptyUsage(): Usage {
  return {
    inputTokens: null,
    outputTokens: null,
    cachedTokens: null,
    cacheWriteTokens: null,
    reasoningTokens: null,
  };
}

/** Whether the provider reported any tokens (then no estimate is made). */
export function reportsUsage(u: Usage): boolean {
  return u.inputTokens !== null || u.outputTokens !== null;
}

const NEWLINE = 0x0a;
// Responses' `response.completed` repeats the whole output, so its line can be long.
const MAX_LINE = 16 * 1024 * 1024;
const DATA = 'data:';
const NULL_VALUE = ':null';
/** `\u`: the one JSON escape that can spell a letter, so a key the byte scan does not see. */
const ESCAPE = '\\u';

/** The member that holds an answer's usage, as the byte scans look for it. */
export interface UsageKey {
  /** `"usage"`. */
  readonly quoted: Buffer;
  /** `usage"`: see `SseUsageObserver.lines`. */
  readonly tail: string;
  /** `tail` where `:null` does not follow it (global, so a search can start anywhere). */
  readonly notNull: RegExp;
}

function usageKey(name: string): UsageKey {
  return {
    quoted: Buffer.from(`"${name}"`),
    tail: `${name}"`,
    notNull: new RegExp(`${name}"(?!${NULL_VALUE})`, 'g'),
  };
}

const USAGE_KEY = usageKey('usage');
/** Gemini's answers and stream chunks carry `usageMetadata`, and no `usage`. */
export const GEMINI_USAGE_KEY = usageKey('usageMetadata');

/**
 * Watches a relayed SSE byte stream for usage without holding the stream. Only lines that
 * mention "usage" matter, so a chunk costs native scans for that word, and only the lines
 * around its occurrences that may hold one are looked at.
 */
export class SseUsageObserver {
  readonly usage: Usage = emptyUsage();
  /** The unfinished last line so far, in pieces, so a long line is joined once. */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** Part of the line being kept was dropped (too long): it may have held anything. */
  private dropped = false;

  constructor(private readonly key: UsageKey = USAGE_KEY) {}

  /**
   * Reads the lines that `chunk` completes. Returns where in `chunk` the first usage object
   * they may hold is: the index of the first `usage"` followed by anything but `:null` (0 when
   * it is in the line that the chunk finishes), or -1 (the usage strip searches from there).
   */
  push(chunk: Buffer): number {
    let from = 0;
    let usageFrom = -1;
    if (this.partial.length > 0) {
      const nl = chunk.indexOf(NEWLINE);
      if (nl === -1) {
        this.keep(chunk);
        return -1;
      }
      this.partial.push(chunk.subarray(0, nl + 1));
      const line = Buffer.concat(this.partial, this.partialBytes + nl + 1);
      this.partial = [];
      this.partialBytes = 0;
      if (this.lines(line, 0, line.length - 1) !== -1) usageFrom = 0;
      from = nl + 1;
    }
    const lastNl = lastNewline(chunk);
    const inChunk = this.lines(chunk, from, lastNl);
    if (usageFrom === -1) usageFrom = inChunk;
    if (lastNl !== -1 && this.dropped) {
      this.dropped = false;
      usageFrom = 0;
    }
    if (lastNl + 1 < chunk.length) this.keep(chunk.subarray(lastNl + 1));
    return usageFrom;
  }

  private keep(piece: Buffer): void {
    this.partial.push(Buffer.from(piece));
    this.partialBytes += piece.length;
    // A line this long is not an SSE usage event; drop it rather than grow without bound.
    if (this.partialBytes > MAX_LINE) {
      this.partial = [];
      this.partialBytes = 0;
      this.dropped = true;
    }
  }

  /**
   * Reads the lines of `buf` between `from` and the newline at `lastNl` that may hold a usage;
   * returns the first `usage"` there followed by anything but `:null`, or -1. The word holds
   * no newline, so each occurrence before `lastNl` lies in one of those lines. The search is
   * for `usage"` and the quote before it is checked after: JSON is full of quotes, so a needle
   * that starts with one stops the native search at every string.
   *
   * The lines are searched as a latin1 string (one char per byte, so its indexes are the
   * bytes'): a Chat stream that asks for usage has a `"usage":null` in every event, and when
   * events come in batches, a Buffer search per event cost twice what the copy and string
   * searches cost together (each Buffer search is a call into C++).
   */
  private lines(buf: Buffer, from: number, lastNl: number): number {
    if (lastNl <= from) return -1;
    const text = buf.toString('latin1', from, lastNl);
    const tail = this.key.tail;
    // Only a `\u` escape could spell a usage key that the byte scan does not see. With none in
    // these lines (nearly always), the `"usage":null` of every event of a Chat stream that asks
    // for usage is passed over inside one regular-expression scan (`next`), its line not looked at.
    const firstEscape = text.indexOf(ESCAPE);
    let nextEscape = firstEscape === -1 ? text.length : firstEscape;
    const escapes = nextEscape < text.length;
    let first = -1;
    let at = this.next(text, 0, escapes);
    while (at !== -1) {
      const isNull = text.startsWith(NULL_VALUE, at + tail.length);
      if (!isNull && first === -1) first = from + at;
      if (text.charCodeAt(at - 1) !== QUOTE || (isNull && !escapes)) {
        at = this.next(text, at + 1, escapes);
        continue;
      }
      const start = text.lastIndexOf('\n', at) + 1;
      const newline = text.indexOf('\n', at);
      const end = newline === -1 ? text.length : newline;
      // Earlier occurrences in this line were null (or not keys): else the loop stopped there.
      let onlyNull = isNull;
      for (
        at = this.next(text, at + 1, escapes);
        at !== -1 && at < end;
        at = this.next(text, at + 1, escapes)
      ) {
        const next = text.startsWith(NULL_VALUE, at + tail.length);
        if (!next && first === -1) first = from + at;
        if (text.charCodeAt(at - 1) === QUOTE) onlyNull &&= next;
      }
      if (!text.startsWith(DATA, start)) continue;
      if (onlyNull) {
        if (nextEscape < start) {
          const found = text.indexOf(ESCAPE, start);
          nextEscape = found === -1 ? text.length : found;
        }
        if (nextEscape >= end) continue;
      }
      try {
        const event = JSON.parse(
          buf.toString('utf8', from + start + DATA.length, from + end),
        ) as Json;
        mergeUsage(this.usage, usageOf(event));
      } catch {
        // Not JSON (e.g. `[DONE]`): nothing to count.
      }
    }
    return first;
  }

  /**
   * The next occurrence of the key's tail in `text` from `i`. Where the lines hold no escape,
   * `lines` passes a null one over without a look, so the search skips those itself: one
   * regular-expression scan past the hundred `"usage":null` of a 100-event Chat stream cost
   * half of what a hundred string searches (a stop in JavaScript each) did.
   */
  private next(text: string, i: number, escapes: boolean): number {
    const tail = this.key.tail;
    if (escapes) return text.indexOf(tail, i);
    const notNull = this.key.notNull;
    notNull.lastIndex = i;
    return notNull.test(text) ? notNull.lastIndex - tail.length : -1;
  }
}
