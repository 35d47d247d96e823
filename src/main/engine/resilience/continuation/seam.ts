import type { StreamTranslator } from '../../translate';
import {
  emptyUsage,
  type IrError,
  type IrEvent,
  type IrUsage,
  mergeIrUsage,
} from '../../translate/ir';
import { SeamText } from './seam-text';
import type { SentAnswer } from './sent';

/** Why and where a stream was cut, for the log row and the `stream.continued` event. */
export interface Cut {
  /** The error class of the break (`stream_network_reset`, `throughput_watchdog`, …). */
  readonly reason: string;
  /** Characters of answer text the client had when it broke. */
  readonly chars: number;
  /** The target that was cut. */
  readonly target: string;
}

/** Rough output tokens of text no usage was reported for (the cut call's partial answer). */
const estimateTokens = (chars: number): number => Math.ceil(chars / 4);

function add(a: number | null, b: number | null): number | null {
  return a === null && b === null ? null : (a ?? 0) + (b ?? 0);
}

/** `a` plus `b`, field by field (a field neither knows stays unknown). */
export function addUsage(a: IrUsage, b: IrUsage): IrUsage {
  const sum: IrUsage = {
    input: add(a.input, b.input),
    output: add(a.output, b.output),
    cached: add(a.cached, b.cached),
    cacheCreation: add(a.cacheCreation, b.cacheCreation),
    reasoning: add(a.reasoning, b.reasoning),
  };
  const tier = b.serviceTier ?? a.serviceTier;
  if (tier !== undefined) sum.serviceTier = tier;
  return sum;
}

/**
 * One client stream across its continuations: the client's writer in the state the client's
 * stream is in, the text the client has, the token counts of the calls so far. A continuation's
 * events pass through `relay`, which drops what the client already has (its start, thinking, a
 * repeat at the seam, its own usage and stop until the end) and numbers tool calls on.
 */
export class Seam {
  /** Continuations sent so far. */
  count = 0;
  /** A continuation is wanted: the stream broke and the client waits for the rest. */
  open = true;
  /** The latest cut. */
  cut: Cut;
  /** Where the stream stood at the latest cut: in text, a tool call or thinking. */
  at: SentAnswer['at'];
  /** What the client has of the answer's text. */
  private text: string;
  /** Token counts of the calls before the current one, added up. */
  private before: IrUsage;
  /** The current continuation's: its own counts and seam. */
  private usage: IrUsage = emptyUsage();
  private seamText: SeamText | null = null;
  private toolBase: number;
  private toolNext: number;
  private stopped = false;
  private textAtBegin = 0;
  /** The error event the current continuation's stream carried, if it did. */
  error: IrError | null = null;

  constructor(
    /** The client's writer, brought to where the client's stream is. */
    readonly translator: StreamTranslator,
    sent: SentAnswer,
    cut: Cut,
  ) {
    this.text = sent.text;
    this.before = withOutputEstimate(sent.usage, sent.text.length);
    this.toolBase = sent.toolBase;
    this.toolNext = sent.toolBase;
    this.cut = cut;
    this.at = sent.at;
    this.stopped = sent.stopped;
  }

  /** The answer text the client has: what a continuation request carries. */
  get partial(): string {
    return this.text;
  }

  /** The token counts of every call so far, the current one included. */
  get total(): IrUsage {
    return addUsage(this.before, this.usage);
  }

  /** A continuation call begins. */
  begin(): void {
    this.count++;
    this.open = false;
    this.usage = emptyUsage();
    this.seamText = new SeamText(this.text);
    this.toolBase = this.toolNext;
    this.stopped = false;
    this.error = null;
    this.textAtBegin = this.text.length;
  }

  /**
   * The current continuation broke too: what it added counts as sent, and (estimated where it
   * reported nothing) its tokens join the earlier calls'.
   */
  broke(cut: Cut): void {
    // Text the seam still held never reached the client: the next continuation goes on from
    // what did (a repeat cut short would otherwise show as new text).
    this.seamText = null;
    const added = this.text.length - this.textAtBegin;
    this.before = addUsage(this.before, withOutputEstimate(this.usage, added));
    this.usage = emptyUsage();
    this.cut = cut;
    this.open = true;
  }

  /** Whether the answer said why it stopped (a clean end without it is a break). */
  get finished(): boolean {
    return this.stopped;
  }

  /** A continuation's events in; the client's text for them out. */
  relay(events: readonly IrEvent[]): string {
    let out = '';
    const w = this.translator;
    for (const ev of events) {
      if (this.error) break;
      switch (ev.type) {
        case 'start':
          if (ev.usage) mergeIrUsage(this.usage, ev.usage);
          break;
        case 'text': {
          const text = this.seamText ? this.seamText.push(ev.text) : ev.text;
          if (text !== '') out += this.sendText(text);
          if (ev.text !== '') this.at = 'text';
          break;
        }
        case 'reasoning':
        case 'reasoning_signature':
          // Thinking is never replayed: the client has its own, or none.
          break;
        case 'tool_start':
          out += this.flush();
          this.at = 'tool';
          this.toolNext = Math.max(this.toolNext, this.toolBase + ev.index + 1);
          out += w.apply([{ ...ev, index: this.toolBase + ev.index }]);
          break;
        case 'tool_args':
          out += w.apply([{ ...ev, index: this.toolBase + ev.index }]);
          break;
        case 'usage':
          mergeIrUsage(this.usage, ev.usage);
          break;
        case 'stop':
          out += this.flush();
          this.stopped = true;
          out += w.apply([{ type: 'usage', usage: this.total }, ev]);
          break;
        case 'error':
          // An error event is a break: the caller continues again or ends the stream.
          this.error = ev.error;
          break;
      }
    }
    return out;
  }

  /** Text the seam still holds, released (the continuation ended or moved on). */
  flush(): string {
    const text = this.seamText?.flush() ?? '';
    return text === '' ? '' : this.sendText(text);
  }

  private sendText(text: string): string {
    this.text += text;
    return this.translator.apply([{ type: 'text', text }]);
  }
}

/**
 * A cut call's output tokens: its final count never came (Anthropic's opening count is a
 * placeholder), so at least an estimate from the text it sent.
 */
function withOutputEstimate(usage: IrUsage, chars: number): IrUsage {
  const estimate = estimateTokens(chars);
  return chars > 0 && (usage.output ?? 0) < estimate ? { ...usage, output: estimate } : usage;
}
