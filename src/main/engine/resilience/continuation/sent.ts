import { createStreamParser, type WireFormat } from '../../translate';
import { emptyUsage, type IrEvent, type IrUsage, mergeIrUsage } from '../../translate/ir';
import { SseDecoder } from '../../translate/stream';

/** What a broken stream had carried when it broke, read back from its bytes. */
export interface SentAnswer {
  /** Its events in order, up to the last complete one. */
  readonly events: IrEvent[];
  /** The answer's text so far (text parts only, joined). */
  readonly text: string;
  /** The latest token counts it reported. */
  readonly usage: IrUsage;
  /** One past the highest tool index it used: a continuation's tool calls are numbered on. */
  readonly toolBase: number;
  /**
   * Where the stream stood at the cut: in text (or nothing yet), a tool call the client saw
   * begin, a tool call held back unseen (`held_tool`), or thinking.
   */
  readonly at: 'text' | 'tool' | 'held_tool' | 'thinking' | 'signed_thinking';
  /** It had already said why it stopped (a cut after that needs no continuation). */
  readonly stopped: boolean;
}

/**
 * Reads the events a stream of `format` carried, from its bytes as they were relayed (only
 * complete events count: a half event never reached the client whole).
 */
export function readSent(
  format: WireFormat,
  chunks: readonly Uint8Array[],
  /** The tool calls at the end were held back: the client never saw them. */
  heldTools = false,
): SentAnswer {
  const parser = createStreamParser(format);
  const decoder = new SseDecoder();
  const events: IrEvent[] = [];
  for (const chunk of chunks) {
    decoder.push(chunk, (event, data) => {
      for (const ev of parser.push(event, data)) events.push(ev);
    });
  }
  let text = '';
  const usage = emptyUsage();
  let toolBase = 0;
  let at: SentAnswer['at'] = 'text';
  let stopped = false;
  const kept: IrEvent[] = [];
  let end = events.length;
  if (heldTools) {
    while (
      end > 0 &&
      (events[end - 1]!.type === 'tool_start' || events[end - 1]!.type === 'tool_args')
    )
      end--;
  }
  for (const ev of events.slice(0, end)) {
    // An error event the stream carried is the cut itself, not part of the answer.
    if (ev.type === 'error') break;
    kept.push(ev);
    switch (ev.type) {
      case 'start':
        if (ev.usage) mergeIrUsage(usage, ev.usage);
        break;
      case 'text':
        text += ev.text;
        if (ev.text !== '') at = 'text';
        break;
      case 'reasoning':
        at = 'thinking';
        break;
      case 'reasoning_signature':
        at = 'signed_thinking';
        break;
      case 'tool_start':
        toolBase = Math.max(toolBase, ev.index + 1);
        at = 'tool';
        break;
      case 'usage':
        mergeIrUsage(usage, ev.usage);
        break;
      case 'stop':
        stopped = true;
        break;
    }
  }
  if (end < events.length) at = 'held_tool';
  return { events: kept, text, usage, toolBase, at, stopped };
}
