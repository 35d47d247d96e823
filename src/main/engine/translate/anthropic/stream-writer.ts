// IR events → Anthropic Messages stream events (client). One content block is open at a time;
// tool argument deltas go to their tool's block by the index it was given.
// https://docs.anthropic.com/en/api/messages-streaming
import { streamErrorEvent } from '../../wire/client-errors';
import { gatewayErrorOf } from '../errors';
import {
  emptyUsage,
  type IrEvent,
  type IrStop,
  type IrWebSearch,
  type Json,
  mergeIrUsage,
  type StreamWriter,
} from '../ir';
import { messageUsage, STOP_OUT, usageOut } from './response';
import { webSearchBlocks } from './web-search';

type Block = 'text' | 'thinking' | 'tool_use';

const sse = (event: string, data: unknown): string =>
  `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

const delta = (index: number, d: Json): string =>
  sse('content_block_delta', { type: 'content_block_delta', index, delta: d });

export class AnthropicStreamWriter implements StreamWriter {
  private started = false;
  /** The newest block's index. */
  private index = -1;
  private open: Block | null = null;
  /** Block indexes by the IR's tool index. */
  private readonly toolBlocks = new Map<number, number>();
  private readonly usage = emptyUsage();
  private stop: IrStop | null = null;
  private stopSequence: string | null = null;
  private sawTool = false;

  write(ev: IrEvent): string {
    switch (ev.type) {
      case 'start':
        if (ev.usage) mergeIrUsage(this.usage, ev.usage);
        return this.started ? '' : this.start(ev.id, ev.model);
      case 'text':
        if (ev.text === '') return '';
        return (
          (this.open === 'text' ? '' : this.openBlock('text', { type: 'text', text: '' })) +
          delta(this.index, { type: 'text_delta', text: ev.text })
        );
      case 'reasoning':
        if (ev.text === '') return '';
        return this.thinking() + delta(this.index, { type: 'thinking_delta', thinking: ev.text });
      case 'reasoning_signature':
        return (
          this.thinking() + delta(this.index, { type: 'signature_delta', signature: ev.signature })
        );
      case 'tool_start': {
        this.sawTool = true;
        const s = this.openBlock('tool_use', {
          type: 'tool_use',
          id: ev.id,
          name: ev.name,
          input: {},
        });
        this.toolBlocks.set(ev.index, this.index);
        return s;
      }
      case 'tool_args': {
        const i = this.toolBlocks.get(ev.index);
        if (i === undefined || ev.delta === '') return '';
        return delta(i, { type: 'input_json_delta', partial_json: ev.delta });
      }
      case 'usage':
        mergeIrUsage(this.usage, ev.usage);
        return '';
      case 'web_search':
        return this.webSearch(ev.search);
      case 'stop':
        this.stop = ev.stop;
        this.stopSequence = ev.stopSequence;
        return '';
      case 'error':
        return streamErrorEvent('anthropic', gatewayErrorOf(ev.error));
    }
  }

  finish(): string {
    const head = this.started ? '' : this.start('msg_breakwater', '');
    const u = usageOut(this.usage);
    const stop = this.stop ?? 'end';
    return `${head}${this.close()}${sse('message_delta', {
      type: 'message_delta',
      delta: {
        stop_reason: STOP_OUT[stop === 'end' && this.sawTool ? 'tool_use' : stop],
        stop_sequence: this.stopSequence,
      },
      usage: u,
    })}${sse('message_stop', { type: 'message_stop' })}`;
  }

  private start(id: string, model: string): string {
    this.started = true;
    return sse('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: messageUsage(this.usage),
      },
    });
  }

  /** The search's two blocks, whole: the call (its input as one delta, as the API sends it), then its result. */
  private webSearch(search: IrWebSearch): string {
    const [use, result] = webSearchBlocks(search);
    const s =
      this.openBlock('tool_use', { ...use, input: {} }) +
      delta(this.index, { type: 'input_json_delta', partial_json: JSON.stringify(use.input) });
    return `${s}${this.openBlock('tool_use', result)}${this.close()}`;
  }

  /** Opens a thinking block unless one is open already. */
  private thinking(): string {
    return this.open === 'thinking'
      ? ''
      : this.openBlock('thinking', { type: 'thinking', thinking: '', signature: '' });
  }

  private openBlock(kind: Block, block: Json): string {
    const s = this.close();
    this.index++;
    this.open = kind;
    return `${s}${sse('content_block_start', { type: 'content_block_start', index: this.index, content_block: block })}`;
  }

  private close(): string {
    if (this.open === null) return '';
    this.open = null;
    return sse('content_block_stop', { type: 'content_block_stop', index: this.index });
  }
}
