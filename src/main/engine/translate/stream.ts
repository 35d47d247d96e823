// Stream converters: SSE bytes of one format in, SSE text of another out, one event at a time.
import {
  emptyUsage,
  type IrError,
  type IrEvent,
  type IrResponse,
  type IrUsage,
  type Json,
  mergeIrUsage,
  type StreamParser,
  type StreamWriter,
} from './ir';

/**
 * Incremental Server-Sent Events decoder: bytes in (split anywhere, UTF-8 safe), complete
 * events out. Only `event:` and `data:` fields matter here; comments and ids are skipped.
 */
export class SseDecoder {
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private event: string | null = null;
  private data: string[] = [];

  push(chunk: Uint8Array, on: (event: string | null, data: string) => void): void {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    let nl = this.buffer.indexOf('\n');
    let start = 0;
    while (nl !== -1) {
      let line = this.buffer.slice(start, nl);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      this.line(line, on);
      start = nl + 1;
      nl = this.buffer.indexOf('\n', start);
    }
    this.buffer = this.buffer.slice(start);
  }

  /** The body ended: a final event without its blank line still counts. */
  end(on: (event: string | null, data: string) => void): void {
    this.buffer += this.decoder.decode();
    if (this.buffer !== '') this.line(this.buffer.replace(/\r$/, ''), on);
    this.buffer = '';
    this.line('', on);
  }

  private line(line: string, on: (event: string | null, data: string) => void): void {
    if (line === '') {
      if (this.data.length > 0) on(this.event, this.data.join('\n'));
      this.event = null;
      this.data = [];
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
  }
}

/** One SSE event's data parsed as JSON (taken to be an object); undefined when it is not JSON. */
export function eventJson(data: string): Json | undefined {
  try {
    return JSON.parse(data) as Json;
  } catch {
    return undefined;
  }
}

/** The events a streamed answer would have had, for an upstream that answered in one piece. */
export function responseEvents(r: IrResponse): IrEvent[] {
  const out: IrEvent[] = [{ type: 'start', id: r.id, model: r.model, usage: null }];
  r.parts.forEach((p, index) => {
    if (p.type === 'text') out.push({ type: 'text', text: p.text });
    else if (p.type === 'reasoning') {
      out.push({ type: 'reasoning', text: p.text });
      if (p.signature) out.push({ type: 'reasoning_signature', signature: p.signature });
    } else {
      out.push({ type: 'tool_start', index, id: p.id, name: p.name });
      out.push({ type: 'tool_args', index, delta: p.arguments });
    }
  });
  out.push({ type: 'usage', usage: r.usage });
  out.push({ type: 'stop', stop: r.stop, stopSequence: r.stopSequence });
  return out;
}

/**
 * Upstream SSE bytes → client SSE text. `push` returns what can be sent now (often nothing for
 * events the client format has no counterpart for); `end` returns the closing events.
 */
export class StreamTranslator {
  readonly usage: IrUsage = emptyUsage();
  private readonly decoder = new SseDecoder();
  private failed = false;
  /**
   * An upstream error event is kept back instead of written, for a continuation to take over
   * (issue 28): see `takeError`.
   */
  holdErrors = false;
  private held: IrError | null = null;
  /**
   * Streamed tool calls wait here until an event of another kind shows their arguments are
   * complete (issue 28): a cut inside one drops it unseen (`dropTools`).
   */
  holdTools = false;
  private heldTools: IrEvent[] | null = null;

  constructor(
    private readonly parser: StreamParser,
    private readonly writer: StreamWriter,
  ) {}

  push(chunk: Uint8Array): string {
    let out = '';
    this.decoder.push(chunk, (event, data) => {
      out += this.apply(this.parser.push(event, data));
    });
    return out;
  }

  /** Whether the upstream reported an error event (the stream then ends with it). */
  get errored(): boolean {
    return this.failed;
  }

  end(): string {
    let out = '';
    this.decoder.end((event, data) => {
      out += this.apply(this.parser.push(event, data));
    });
    out += this.apply(this.parser.end());
    return out + this.close();
  }

  /** The writer's closing events, unless an error event already ended the stream. */
  close(): string {
    return this.failed ? '' : this.releaseTools() + this.writer.finish();
  }

  /** Drops the tool calls held back (a cut fell inside them); true when there were some. */
  dropTools(): boolean {
    const had = this.heldTools !== null;
    this.heldTools = null;
    return had;
  }

  private releaseTools(): string {
    const held = this.heldTools;
    if (held === null) return '';
    this.heldTools = null;
    let out = '';
    for (const ev of held) out += this.writer.write(ev);
    return out;
  }

  /**
   * The error event held back (`holdErrors`), if one came; the translator writes again after,
   * as if it had not (a continuation goes on, or the caller ends the stream with `fail`).
   */
  takeError(): IrError | null {
    const err = this.held;
    this.held = null;
    if (err) this.failed = false;
    return err;
  }

  /** The next events are numbered from `next` on (a continued Responses stream). */
  resumeSequence(next: number): void {
    this.writer.resumeSequence?.(next);
  }

  /** Ends the stream with an error event of the relay's own (a break, a watchdog cut). */
  fail(error: IrError): string {
    // The relay's own ending is never held back; a tool call it cuts short is not shown.
    this.holdErrors = false;
    this.heldTools = null;
    return this.apply([{ type: 'error', error }]);
  }

  /** Writes IR events directly (an upstream that answered without streaming). */
  apply(events: IrEvent[]): string {
    let out = '';
    for (const ev of events) {
      if (this.failed) break;
      if (this.holdTools) {
        if (ev.type === 'tool_start' || ev.type === 'tool_args') {
          if (this.heldTools === null) this.heldTools = [ev];
          else this.heldTools.push(ev);
          continue;
        }
        if (ev.type !== 'error') out += this.releaseTools();
      }
      if (ev.type === 'usage') mergeIrUsage(this.usage, ev.usage);
      else if (ev.type === 'start' && ev.usage) mergeIrUsage(this.usage, ev.usage);
      else if (ev.type === 'error') {
        this.failed = true;
        if (this.holdErrors) {
          this.held = ev.error;
          break;
        }
      }
      out += this.writer.write(ev);
    }
    return out;
  }
}
