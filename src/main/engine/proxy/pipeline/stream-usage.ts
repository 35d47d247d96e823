// A Chat stream that passes through is costed from the usage its provider reports (issue 27):
// most OpenAI-SDK clients do not ask for it, so the gateway asks (`stream_options.include_usage`)
// and takes the extra usage event out of what such a client receives. Where a provider reports
// nothing all the same, the estimate counts the content the stream carried, not its framing.
import type { Candidate } from '../../routing/resolve';
import { lastNewline, QUOTE } from '../../wire/json-members';
import { bodyOf, type RequestContext } from './context';
import { translatedFor } from './translate';

/** A Chat stream the provider answers in Chat: its events reach the client as they are. */
export function isChatPassthrough(ctx: RequestContext, candidate: Candidate): boolean {
  return (
    ctx.stream &&
    ctx.endpoint.format === 'openai-chat' &&
    translatedFor(ctx, candidate) === undefined
  );
}

/** The gateway asks for usage the client did not: the usage event is the gateway's to remove. */
export function addsUsage(ctx: RequestContext, candidate: Candidate): boolean {
  return isChatPassthrough(ctx, candidate) && !clientAsked(ctx);
}

function clientAsked(ctx: RequestContext): boolean {
  return (
    (ctx.streamOptions as { include_usage?: unknown } | null | undefined)?.include_usage === true
  );
}

/** `stream_options` asking for usage, as the body's first member (`outgoingPassthrough`). */
export const USAGE_ASKED = Buffer.from('"stream_options":{"include_usage":true},');

/**
 * The request serialised again asking for usage when the client sent `stream_options` of its
 * own (its other options are kept), or null when it sent none: then `USAGE_ASKED` goes in front
 * of the client's bytes.
 */
export function usageAskedAgain(ctx: RequestContext, model: string): Buffer | null {
  const given = ctx.streamOptions;
  if (given === undefined) return null;
  const options = typeof given === 'object' && given !== null && !Array.isArray(given) ? given : {};
  return Buffer.from(
    JSON.stringify({ ...bodyOf(ctx), model, stream_options: { ...options, include_usage: true } }),
  );
}

const NEWLINE = 0x0a;
const BACKSLASH = 0x5c;
const DATA = Buffer.from('data:');
/** A usage object, not the `"usage":null` of every other chunk. */
const USAGE_OBJECT = Buffer.from('usage":{');

/**
 * Takes the usage-only event (`"choices":[]` with a usage) out of a Chat stream. Lines go on
 * whole: an unfinished last line waits for the rest (an SSE client reads nothing of it before
 * its newline either); a chunk with no usage object in it is passed on as it is.
 */
export class UsageEventStrip {
  private held: Buffer | null = null;

  /**
   * What of `chunk` goes to the client. `usageFrom`: where in `chunk` the usage observer saw
   * the first usage that is not null (`SseUsageObserver.push`), or -1; the lines are searched
   * only from there. The observer keeps the same unfinished line as this strip holds.
   */
  push(chunk: Buffer, usageFrom: number): Buffer {
    const held = this.held;
    let buf = held ? Buffer.concat([held, chunk]) : chunk;
    this.held = null;
    const lastNl = lastNewline(buf);
    if (lastNl < buf.length - 1) {
      this.held = Buffer.from(buf.subarray(lastNl + 1));
      buf = buf.subarray(0, lastNl + 1);
    }
    const from = usageFrom <= 0 || !held ? usageFrom : held.length + usageFrom;
    const at = from === -1 ? -1 : buf.indexOf(USAGE_OBJECT, from);
    return at === -1 ? buf : withoutUsageEvents(buf, at);
  }

  /** The unfinished last line, when the stream ends: sent as it came. */
  rest(): Buffer | null {
    const rest = this.held;
    this.held = null;
    return rest;
  }
}

/**
 * `buf` (whole lines) without its usage-only events and the blank line that ends each. The
 * bytes after an event taken out move up in place (`buf` is the relay's own chunk, and the
 * usage event comes last but for `[DONE]`), so nothing the size of the stream is copied.
 */
function withoutUsageEvents(buf: Buffer, first: number): Buffer {
  let write = 0;
  let read = 0;
  let at = first;
  while (at !== -1) {
    const start = buf.lastIndexOf(NEWLINE, at) + 1;
    let end = buf.indexOf(NEWLINE, at) + 1;
    if (isUsageOnly(buf, start, end)) {
      if (buf[end] === NEWLINE) end++;
      else if (buf[end] === 0x0d && buf[end + 1] === NEWLINE) end += 2;
      if (write !== read) buf.copyWithin(write, read, start);
      write += start - read;
      read = end;
    }
    at = buf.indexOf(USAGE_OBJECT, end);
  }
  if (read === 0) return buf;
  buf.copyWithin(write, read);
  return buf.subarray(0, write + buf.length - read);
}

function isUsageOnly(buf: Buffer, start: number, end: number): boolean {
  if (buf.compare(DATA, 0, DATA.length, start, start + DATA.length) !== 0) return false;
  try {
    const event = JSON.parse(buf.toString('utf8', start + DATA.length, end)) as {
      choices?: unknown;
      usage?: unknown;
    };
    return Array.isArray(event.choices) && event.choices.length === 0 && event.usage != null;
  } catch {
    return false;
  }
}

/**
 * The string members of Chat deltas that carry content, as one search (`content` finds
 * `reasoning_content`). No key can start inside another's match, so one scan finds what a
 * search per key would.
 */
const CONTENT_KEYS = /(?:content|arguments|reasoning)":"/g;

/**
 * Counts the bytes of a Chat stream's content deltas, as an estimate's measure when the provider
 * reports no usage. Nothing kept; a string cut by a chunk boundary counts its first part only,
 * which an estimate can bear. The chunk is searched as a latin1 string (one char per byte): a
 * native search per key and occurrence cost twice as much (each is a call into C++, and a
 * 100-event stream holds a hundred).
 */
export class ContentMeter {
  bytes = 0;

  push(buf: Buffer): void {
    const text = buf.toString('latin1');
    const keys = CONTENT_KEYS;
    keys.lastIndex = 0;
    while (keys.test(text)) this.bytes += stringBytes(text, keys.lastIndex);
  }
}

/** The same measure over a whole stream's chunks, kept by reference while it ran. */
export function contentBytesOf(chunks: readonly Buffer[]): number {
  const meter = new ContentMeter();
  for (const c of chunks) meter.push(c);
  return meter.bytes;
}

/** Bytes of the JSON string from `from` (after its opening quote) to its closing quote or the end. */
function stringBytes(text: string, from: number): number {
  let i = from;
  while (i < text.length && text.charCodeAt(i) !== QUOTE)
    i += text.charCodeAt(i) === BACKSLASH ? 2 : 1;
  return Math.min(i, text.length) - from;
}
