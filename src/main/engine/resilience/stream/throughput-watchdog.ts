// Stream throughput watchdog (RESILIENCE.md §6): judges whether a stream that still sends chunks
// produces useful output at a minimum rate. Pure: events and time go in, a verdict comes out; the
// relay (the host) reads the clock, feeds it and acts on a trip.
import type { ClientFormat } from '../../../../shared/contract';
import type { ThroughputWatchdogOptions } from '../../settings/resilience-defaults';
import { SseDecoder } from '../../translate/stream';

/** What one upstream SSE event means to the watchdog. */
export type StreamSignal =
  /** Text deltas: `bytes` is the UTF-8 length of the text (0 for an empty delta). */
  | { kind: 'text'; bytes: number }
  /** Tool-call or reasoning output: judgement pauses. */
  | { kind: 'pause' }
  /** Keep-alive (`event: ping`); SSE comment lines never become events at all. */
  | { kind: 'heartbeat' }
  /** Start/stop/usage/role-only or otherwise content-free events. */
  | { kind: 'meta' }
  /** An error event from the upstream. */
  | { kind: 'error' };

export type WatchdogVerdict =
  | { kind: 'ok' }
  | { kind: 'trip'; reason: string; bytesInWindow: number; windowMs: number };

const HEARTBEAT: StreamSignal = { kind: 'heartbeat' };
const META: StreamSignal = { kind: 'meta' };
const PAUSE: StreamSignal = { kind: 'pause' };
const ERROR: StreamSignal = { kind: 'error' };
const encoder = new TextEncoder();

type Json = Record<string, unknown>;

function obj(v: unknown): Json | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
}

export function utf8Length(s: string): number {
  // Fast path for ASCII, the common case.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point.
  return /^[\x00-\x7f]*$/.test(s) ? s.length : encoder.encode(s).length;
}

function text(bytes: number): StreamSignal {
  return { kind: 'text', bytes };
}

function chatSignal(data: Json): StreamSignal {
  if (obj(data.error)) return ERROR;
  const choices = Array.isArray(data.choices) ? data.choices : [];
  let bytes = 0;
  let pause = false;
  for (const c of choices) {
    const delta = obj(obj(c)?.delta);
    if (!delta) continue;
    if (typeof delta.content === 'string') bytes += utf8Length(delta.content);
    if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) pause = true;
    if (obj(delta.function_call)) pause = true;
    for (const k of ['reasoning_content', 'reasoning']) {
      const r = delta[k];
      if ((typeof r === 'string' && r !== '') || obj(r)) pause = true;
    }
  }
  if (bytes > 0) return text(bytes);
  return pause ? PAUSE : META;
}

/** Gemini chunks: answer text counts; thoughts and (whole) function calls are the model working. */
function geminiSignal(data: Json): StreamSignal {
  if (obj(data.error)) return ERROR;
  const candidate = obj(Array.isArray(data.candidates) ? data.candidates[0] : null);
  const parts = obj(candidate?.content)?.parts;
  let bytes = 0;
  let pause = false;
  for (const p of Array.isArray(parts) ? parts : []) {
    const part = obj(p);
    if (part?.thought === true || obj(part?.functionCall)) pause = true;
    else if (typeof part?.text === 'string') bytes += utf8Length(part.text);
  }
  if (bytes > 0) return text(bytes);
  return pause ? PAUSE : META;
}

const ANTHROPIC_PAUSE_DELTAS = new Set(['input_json_delta', 'thinking_delta', 'signature_delta']);
const ANTHROPIC_PAUSE_BLOCKS = new Set([
  'tool_use',
  'server_tool_use',
  'thinking',
  'redacted_thinking',
]);

function anthropicSignal(type: string, data: Json): StreamSignal {
  if (type === 'ping') return HEARTBEAT;
  if (type === 'error') return ERROR;
  if (type === 'content_block_delta') {
    const delta = obj(data.delta);
    const t = delta?.type;
    if (t === 'text_delta')
      return text(typeof delta?.text === 'string' ? utf8Length(delta.text) : 0);
    if (typeof t === 'string' && ANTHROPIC_PAUSE_DELTAS.has(t)) return PAUSE;
    return META;
  }
  if (type === 'content_block_start') {
    const block = obj(data.content_block);
    if (typeof block?.type === 'string' && ANTHROPIC_PAUSE_BLOCKS.has(block.type)) return PAUSE;
  }
  return META;
}

const RESPONSES_PAUSE = /function_call|custom_tool_call|reasoning|_call\.|mcp_/;

function responsesSignal(type: string, data: Json): StreamSignal {
  if (type === 'response.output_text.delta') {
    return text(typeof data.delta === 'string' ? utf8Length(data.delta) : 0);
  }
  if (type === 'error' || type === 'response.failed') return ERROR;
  if (type === 'response.output_item.added' || type === 'response.output_item.done') {
    const item = obj(data.item)?.type;
    return typeof item === 'string' && item !== 'message' ? PAUSE : META;
  }
  return RESPONSES_PAUSE.test(type) ? PAUSE : META;
}

/**
 * Classifies one decoded SSE event of an upstream in `format`. Events are judged by their JSON
 * `type` (falling back to the SSE event name); what cannot be parsed says nothing (meta).
 */
export function classifyStreamEvent(
  format: ClientFormat,
  event: string | null,
  data: string,
): StreamSignal {
  if (event === 'ping') return HEARTBEAT;
  let parsed: Json | null;
  try {
    parsed = obj(JSON.parse(data));
  } catch {
    return event === 'error' ? ERROR : META; // `[DONE]` and other non-JSON data
  }
  if (!parsed) return META;
  if (format === 'openai-chat') return chatSignal(parsed);
  if (format === 'gemini') return geminiSignal(parsed);
  const type = typeof parsed.type === 'string' ? parsed.type : (event ?? '');
  return format === 'anthropic' ? anthropicSignal(type, parsed) : responsesSignal(type, parsed);
}

/** Clamps and checks options once; the hot path trusts them. */
export function watchdogOptions(o: ThroughputWatchdogOptions): ThroughputWatchdogOptions {
  const int = (v: number, min: number, max: number) =>
    Math.min(max, Math.max(min, Math.round(Number.isFinite(v) ? v : min)));
  return {
    warmupMs: int(o.warmupMs, 0, 3_600_000),
    windowMs: int(o.windowMs, 100, 3_600_000),
    minBytesPerSecond: int(o.minBytesPerSecond, 1, 1_048_576),
    minMeasurableBytes: int(o.minMeasurableBytes, 0, 1_048_576),
  };
}

/**
 * The rule: judgement starts at `max(start + warmup, last tool/reasoning event)` and needs a full
 * window after that; a trip is a full window whose text bytes fall short of rate × window.
 * Heartbeats, metadata, usage-only and empty events add nothing and reset nothing.
 */
export class ThroughputWatchdog {
  private readonly opts: ThroughputWatchdogOptions;
  /** The measuring window, stretched to carry at least `minMeasurableBytes` at the minimum rate. */
  readonly spanMs: number;
  private readonly requiredBytes: number;
  private readonly origin: number;
  private pausedAt = Number.NEGATIVE_INFINITY;
  /** Text samples inside the window: times and byte counts, oldest first, from `head`. */
  private readonly times: number[] = [];
  private readonly sizes: number[] = [];
  private head = 0;
  private inWindow = 0;
  private total = 0;

  constructor(options: ThroughputWatchdogOptions, startedAt: number) {
    this.opts = watchdogOptions(options);
    const { windowMs, minBytesPerSecond, minMeasurableBytes } = this.opts;
    this.spanMs = Math.max(windowMs, Math.ceil((minMeasurableBytes * 1000) / minBytesPerSecond));
    this.requiredBytes = (minBytesPerSecond * this.spanMs) / 1000;
    this.origin = startedAt + this.opts.warmupMs;
  }

  /** Useful text bytes seen so far. */
  get textBytes(): number {
    return this.total;
  }

  /** Takes one classified event into account. */
  observe(signal: StreamSignal, now: number): void {
    if (signal.kind === 'pause') this.pausedAt = Math.max(this.pausedAt, now);
    else if (signal.kind === 'text' && signal.bytes > 0) {
      this.total += signal.bytes;
      this.inWindow += signal.bytes;
      this.times.push(now);
      this.sizes.push(signal.bytes);
    }
  }

  check(now: number): WatchdogVerdict {
    const from = Math.max(this.origin, this.pausedAt);
    if (now - from < this.spanMs) return { kind: 'ok' };
    this.prune(now - this.spanMs);
    if (this.inWindow >= this.requiredBytes) return { kind: 'ok' };
    const rate = this.opts.minBytesPerSecond;
    return {
      kind: 'trip',
      reason: `${this.inWindow} bytes of text in the last ${this.spanMs} ms, below ${rate} bytes/s`,
      bytesInWindow: this.inWindow,
      windowMs: this.spanMs,
    };
  }

  /** Drops samples at or before `cutoff` (the window is `(now - span, now]`). */
  private prune(cutoff: number): void {
    while (this.head < this.times.length && this.times[this.head]! <= cutoff) {
      this.inWindow -= this.sizes[this.head]!;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times.splice(0, this.head);
      this.sizes.splice(0, this.head);
      this.head = 0;
    }
  }
}

/**
 * Bytes in, signals out: decodes an upstream SSE byte stream (split anywhere, UTF-8 safe) and
 * feeds every event to a watchdog. SSE comment lines (`: keep-alive`) never become events.
 */
export class WatchdogFeed {
  private readonly decoder = new SseDecoder();
  /** Whether any event that commits the stream (text, tool, reasoning, error) was seen. */
  committed = false;

  constructor(
    readonly format: ClientFormat,
    readonly watchdog: ThroughputWatchdog,
  ) {}

  push(chunk: Uint8Array, now: number): void {
    this.decoder.push(chunk, (event, data) => this.take(event, data, now));
  }

  /** The body ended: a last event without its blank line still counts. */
  end(now: number): void {
    this.decoder.end((event, data) => this.take(event, data, now));
  }

  private take(event: string | null, data: string, now: number): void {
    const signal = classifyStreamEvent(this.format, event, data);
    this.watchdog.observe(signal, now);
    if (
      (signal.kind === 'text' && signal.bytes > 0) ||
      signal.kind === 'pause' ||
      signal.kind === 'error'
    ) {
      this.committed = true;
    }
  }
}
