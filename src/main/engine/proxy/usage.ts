/** Token counts reported by an upstream; null where the upstream did not say. */
export interface Usage {
  inputTokens: number | null;
  outputTokens: number | null;
  cachedTokens: number | null;
}

type Json = Record<string, unknown>;

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function obj(v: unknown): Json | null {
  return typeof v === 'object' && v !== null ? (v as Json) : null;
}

/**
 * Reads usage from any of the three formats' `usage` objects (Chat: prompt/completion tokens;
 * Responses and Anthropic: input/output tokens), merging into what is known so far: Anthropic
 * streams report input tokens in `message_start` and output tokens in `message_delta`.
 */
export function mergeUsage(into: Usage, usageValue: unknown): void {
  const u = obj(usageValue);
  if (!u) return;
  const input = num(u.prompt_tokens) ?? num(u.input_tokens);
  const output = num(u.completion_tokens) ?? num(u.output_tokens);
  const cached =
    num(obj(u.prompt_tokens_details)?.cached_tokens) ??
    num(obj(u.input_tokens_details)?.cached_tokens) ??
    num(u.cache_read_input_tokens);
  if (input !== null) into.inputTokens = input;
  if (output !== null) into.outputTokens = output;
  if (cached !== null) into.cachedTokens = cached;
}

/** Finds the `usage` object of a whole JSON response or of one stream event. */
export function usageOf(event: Json): unknown {
  if (event.usage !== undefined) return event.usage;
  const inner = obj(event.response) ?? obj(event.message);
  return inner?.usage;
}

export function emptyUsage(): Usage {
  return { inputTokens: null, outputTokens: null, cachedTokens: null };
}

const NEWLINE = 0x0a;
// Responses' `response.completed` repeats the whole output, so its line can be long.
const MAX_LINE = 16 * 1024 * 1024;

/**
 * Watches a relayed SSE byte stream for usage without holding the stream: it splits lines
 * incrementally and parses only `data:` lines that mention "usage", so text deltas cost a
 * byte scan and nothing more.
 */
export class SseUsageObserver {
  readonly usage: Usage = emptyUsage();
  private partial: Buffer | null = null;

  push(chunk: Buffer): void {
    let start = 0;
    let nl = chunk.indexOf(NEWLINE, start);
    while (nl !== -1) {
      const piece = chunk.subarray(start, nl);
      const line = this.partial ? Buffer.concat([this.partial, piece]) : piece;
      this.partial = null;
      this.line(line);
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      const joined = this.partial ? Buffer.concat([this.partial, rest]) : Buffer.from(rest);
      // A line this long is not an SSE usage event; drop it rather than grow without bound.
      this.partial = joined.length > MAX_LINE ? null : joined;
    }
  }

  private line(line: Buffer): void {
    if (line.length < 6 || line[0] !== 0x64 /* d */ || !line.subarray(0, 5).equals(DATA)) return;
    if (line.indexOf(USAGE) === -1) return;
    try {
      const event = JSON.parse(line.subarray(5).toString('utf8')) as Json;
      mergeUsage(this.usage, usageOf(event));
    } catch {
      // Not JSON (e.g. `[DONE]`): nothing to count.
    }
  }
}

const DATA = Buffer.from('data:');
const USAGE = Buffer.from('"usage"');
