// The upstream idle timeout that heartbeats do not reset (RESILIENCE.md §6): a stream that sends
// only SSE comments, `ping` events or empty deltas is as dead as a silent one. Pure: events and
// time go in, a verdict comes out; proxy/stream-watch.ts feeds it and runs the timer.
import type { ClientFormat } from '../../../../shared/contract';
import { SseDecoder } from '../../translate/stream';

type Json = Record<string, unknown>;

function obj(v: unknown): Json | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
}

function nonEmpty(v: unknown): boolean {
  if (typeof v === 'string') return v !== '';
  if (Array.isArray(v)) return v.length > 0;
  return obj(v) !== null;
}

/** A Chat Completions chunk carries content when a delta says something, it finishes, or it has usage. */
function chatContent(data: Json): boolean {
  if (data.error !== undefined || obj(data.usage)) return true;
  const choices = Array.isArray(data.choices) ? data.choices : [];
  for (const c of choices) {
    const choice = obj(c);
    if (!choice) continue;
    if (typeof choice.finish_reason === 'string') return true;
    const delta = obj(choice.delta);
    if (!delta) continue;
    for (const k of ['content', 'tool_calls', 'function_call', 'reasoning_content', 'reasoning'])
      if (nonEmpty(delta[k])) return true;
  }
  return false;
}

/** Events that only say "still working": a stream of nothing but these is idle. */
const STATUS_ONLY = new Set(['ping', 'response.in_progress', 'keepalive', 'keep-alive']);

/** Delta fields whose emptiness makes a delta event empty, per API. */
function emptyDelta(type: string, data: Json): boolean {
  if (type === 'content_block_delta') {
    const d = obj(data.delta);
    return (
      !d ||
      !(['text', 'partial_json', 'thinking', 'signature'] as const).some((k) => nonEmpty(d[k]))
    );
  }
  if (type.startsWith('response.') && type.endsWith('.delta')) return !nonEmpty(data.delta);
  return false;
}

/**
 * Whether one decoded SSE event of an upstream in `format` carries content (text, tool calls,
 * reasoning, an error, the structure and usage around them) rather than only keeping the
 * connection warm. Data that is not JSON (`[DONE]`) ends the stream, which is content too.
 */
export function carriesContent(format: ClientFormat, event: string | null, data: string): boolean {
  if (event !== null && STATUS_ONLY.has(event)) return false;
  let parsed: Json | null;
  try {
    parsed = obj(JSON.parse(data));
  } catch {
    return data.trim() !== '';
  }
  if (!parsed) return false;
  if (format === 'openai-chat') return chatContent(parsed);
  const type = typeof parsed.type === 'string' ? parsed.type : (event ?? '');
  if (STATUS_ONLY.has(type)) return false;
  if (format === 'gemini') return nonEmpty(parsed.candidates) || obj(parsed.usageMetadata) !== null;
  return !emptyDelta(type, parsed);
}

/**
 * Bytes in, "content seen" out. Decoding stops once content was seen in the current period and
 * starts afresh at the next one (`period()`): a flowing stream costs one parsed event per period,
 * not one per event. A restart may lose the event it starts inside; the next blank line resyncs.
 */
export class ContentIdleFeed {
  private decoder: SseDecoder | null = new SseDecoder();
  private readonly onEvent = (event: string | null, data: string): void => {
    if (this.decoder && carriesContent(this.format, event, data)) this.decoder = null;
  };

  constructor(private readonly format: ClientFormat) {}

  push(chunk: Uint8Array): void {
    this.decoder?.push(chunk, this.onEvent);
  }

  /** Ends a period: whether content came in it; the next one starts with nothing seen. */
  period(): boolean {
    const seen = this.decoder === null;
    if (seen) this.decoder = new SseDecoder();
    return seen;
  }
}

/**
 * The verdict at a period's end: content seen now moves the mark to `now` (it came at most one
 * period ago); otherwise the stream is idle once `idleMs` have passed since the mark.
 */
export function idleVerdict(
  lastContentAt: number,
  sawContent: boolean,
  now: number,
  idleMs: number,
): { idle: boolean; lastContentAt: number } {
  if (sawContent) return { idle: false, lastContentAt: now };
  return { idle: now - lastContentAt >= idleMs, lastContentAt };
}
