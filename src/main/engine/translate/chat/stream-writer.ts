// IR events → Chat Completions stream chunks (client).
// https://platform.openai.com/docs/api-reference/chat-streaming
import { streamErrorEvent } from '../../wire/client-errors';
import { gatewayErrorOf } from '../errors';
import { emptyUsage, type IrEvent, type Json, mergeIrUsage, type StreamWriter } from '../ir';
import { STOP_OUT, usageOut } from './response';

export interface ChatWriterOptions {
  created: number;
  /** The client asked for `stream_options.include_usage`. */
  includeUsage: boolean;
}

export class ChatStreamWriter implements StreamWriter {
  private id = 'chatcmpl-breakwater';
  private model = '';
  private started = false;
  private stopped = false;
  private sawTool = false;
  private readonly usage = emptyUsage();
  /** The client's tool call index (0, 1, …) by the IR's. */
  private readonly tools = new Map<number, number>();

  constructor(private readonly opts: ChatWriterOptions) {}

  write(ev: IrEvent): string {
    switch (ev.type) {
      case 'start':
        if (this.started) return '';
        this.id = ev.id || this.id;
        this.model = ev.model;
        if (ev.usage) mergeIrUsage(this.usage, ev.usage);
        return this.start();
      case 'text':
        return ev.text === '' ? '' : this.chunk({ content: ev.text }, null);
      case 'reasoning':
        return ev.text === '' ? '' : this.chunk({ reasoning_content: ev.text }, null);
      case 'reasoning_signature':
        return '';
      case 'tool_start': {
        this.sawTool = true;
        const i = this.tools.size;
        this.tools.set(ev.index, i);
        return this.chunk(
          {
            tool_calls: [
              { index: i, id: ev.id, type: 'function', function: { name: ev.name, arguments: '' } },
            ],
          },
          null,
        );
      }
      case 'tool_args': {
        const i = this.tools.get(ev.index);
        if (i === undefined || ev.delta === '') return '';
        return this.chunk({ tool_calls: [{ index: i, function: { arguments: ev.delta } }] }, null);
      }
      case 'usage':
        mergeIrUsage(this.usage, ev.usage);
        return '';
      case 'web_search':
        // Chat has no server-side tool to show; the answer's text carries what was found.
        return '';
      case 'stop':
        if (this.stopped) return '';
        this.stopped = true;
        return this.chunk({}, STOP_OUT[ev.stop === 'end' && this.sawTool ? 'tool_use' : ev.stop]);
      case 'error':
        return streamErrorEvent('openai-chat', gatewayErrorOf(ev.error));
    }
  }

  finish(): string {
    let s = this.started ? '' : this.start();
    if (!this.stopped) s += this.chunk({}, this.sawTool ? 'tool_calls' : 'stop');
    if (this.opts.includeUsage) {
      s += `data: ${JSON.stringify({
        id: this.id,
        object: 'chat.completion.chunk',
        created: this.opts.created,
        model: this.model,
        system_fingerprint: null,
        choices: [],
        usage: usageOut(this.usage),
      })}\n\n`;
    }
    return `${s}data: [DONE]\n\n`;
  }

  private start(): string {
    this.started = true;
    return this.chunk({ role: 'assistant', content: '' }, null);
  }

  private chunk(delta: Json, finish: string | null): string {
    return `data: ${JSON.stringify({
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.opts.created,
      model: this.model,
      system_fingerprint: null,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    })}\n\n`;
  }
}
