// IR events → OpenAI Responses stream events (client). Items open and close in output order;
// each event carries the sequence number and the item's place that Responses clients track.
// https://platform.openai.com/docs/api-reference/responses-streaming
import { streamErrorEvent } from '../../wire/client-errors';
import { gatewayErrorOf } from '../errors';
import {
  customInput,
  emptyUsage,
  type IrError,
  type IrEvent,
  type IrStop,
  type IrWebSearch,
  type Json,
  mergeIrUsage,
  type StreamWriter,
} from '../ir';
import { type Envelope, itemId, responseObject, usageOut } from './response';
import { webSearchItem } from './web-search';

export interface ResponsesWriterOptions {
  createdAt: number;
  /** The clock (milliseconds) that stamps `completed_at` when the answer ends. */
  now: () => number;
  /** Names of freeform tools: their calls become `custom_tool_call` items. */
  custom?: ReadonlySet<string>;
  /** The request's fields the response envelope repeats (`responseEcho`). */
  echo?: Readonly<Json>;
}

/** An output item as it is written: `text` gathers its text, arguments or custom input. */
interface OpenItem {
  kind: 'message' | 'reasoning' | 'function_call' | 'custom_tool_call' | 'web_search_call';
  id: string;
  outputIndex: number;
  text: string;
  signature: string | null;
  callId: string;
  name: string;
  closed: boolean;
  /** A `web_search_call` item's search. */
  search?: IrWebSearch;
}

const ITEM_PREFIX: Record<OpenItem['kind'], string> = {
  message: 'msg',
  reasoning: 'rs',
  custom_tool_call: 'ctc',
  function_call: 'fc',
  web_search_call: 'ws',
};

export class ResponsesStreamWriter implements StreamWriter {
  private seq = 0;
  private id = 'resp_breakwater';
  private model = '';
  private started = false;
  private stop: IrStop | null = null;
  private readonly usage = emptyUsage();
  private readonly items: OpenItem[] = [];
  /** The item that text, reasoning and signatures go to; tool arguments find theirs in `tools`. */
  private current: OpenItem | null = null;
  private readonly tools = new Map<number, OpenItem>();

  constructor(private readonly opts: ResponsesWriterOptions) {}

  write(e: IrEvent): string {
    switch (e.type) {
      case 'start':
        if (this.started) return '';
        this.id = e.id || this.id;
        this.model = e.model;
        if (e.usage) mergeIrUsage(this.usage, e.usage);
        return this.start();
      case 'text':
        return e.text === '' ? '' : this.text(e.text);
      case 'reasoning':
        return e.text === '' ? '' : this.reasoning(e.text);
      case 'reasoning_signature': {
        const s = this.current?.kind === 'reasoning' ? '' : this.open('reasoning');
        this.current!.signature = (this.current!.signature ?? '') + e.signature;
        return s;
      }
      case 'tool_start': {
        const kind = this.opts.custom?.has(e.name) ? 'custom_tool_call' : 'function_call';
        const s = this.open(kind, e.id, e.name);
        this.tools.set(e.index, this.current!);
        return s;
      }
      case 'tool_args':
        return this.toolArgs(e.index, e.delta);
      case 'usage':
        mergeIrUsage(this.usage, e.usage);
        return '';
      case 'web_search':
        return this.webSearch(e.search);
      case 'stop':
        this.stop = e.stop;
        return '';
      case 'error':
        return this.error(e.error);
    }
  }

  finish(): string {
    let s = this.started ? '' : this.start();
    s += this.closeCurrent();
    for (const it of this.items) {
      if (!it.closed) {
        this.current = it;
        s += this.closeCurrent();
      }
    }
    const r = this.envelope(
      'completed',
      this.items.map(snapshot),
      usageOut(this.usage),
      Math.floor(this.opts.now() / 1000),
    );
    const type = r.status === 'incomplete' ? 'response.incomplete' : 'response.completed';
    return s + this.ev(type, { response: r });
  }

  resumeSequence(next: number): void {
    this.seq = Math.max(this.seq, next);
  }

  private ev(type: string, fields: Json): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.seq++, ...fields })}\n\n`;
  }

  private start(): string {
    this.started = true;
    const r = this.envelope('in_progress', [], null, this.opts.createdAt);
    return (
      this.ev('response.created', { response: r }) +
      this.ev('response.in_progress', { response: r })
    );
  }

  private envelope(
    status: Envelope['status'],
    output: Json[],
    usage: Json | null,
    completedAt: number,
  ): Json {
    const { id, model } = this;
    // An answer in progress has no stop yet, whatever the events so far said.
    const stop = status === 'completed' ? this.stop : null;
    return responseObject(
      { id, model, createdAt: this.opts.createdAt, completedAt, status, output, usage, stop },
      this.opts.echo,
    );
  }

  private text(delta: string): string {
    const s = this.current?.kind === 'message' ? '' : this.open('message');
    const it = this.current!;
    it.text += delta;
    return (
      s +
      this.ev('response.output_text.delta', {
        item_id: it.id,
        output_index: it.outputIndex,
        content_index: 0,
        delta,
        logprobs: [],
      })
    );
  }

  private reasoning(delta: string): string {
    let s = '';
    if (this.current?.kind !== 'reasoning') s += this.open('reasoning');
    const it = this.current!;
    if (it.text === '') {
      s += this.ev('response.reasoning_summary_part.added', {
        item_id: it.id,
        output_index: it.outputIndex,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      });
    }
    it.text += delta;
    return (
      s +
      this.ev('response.reasoning_summary_text.delta', {
        item_id: it.id,
        output_index: it.outputIndex,
        summary_index: 0,
        delta,
      })
    );
  }

  private toolArgs(index: number, delta: string): string {
    const it = this.tools.get(index);
    if (!it || delta === '') return '';
    it.text += delta;
    if (it.closed || it.kind === 'custom_tool_call') return '';
    return this.ev('response.function_call_arguments.delta', {
      item_id: it.id,
      output_index: it.outputIndex,
      delta,
    });
  }

  /** A finished search, as its item's whole life: added, in progress, searching, completed, done. */
  private webSearch(search: IrWebSearch): string {
    let s = this.open('web_search_call', '', '', search);
    const it = this.current!;
    const loc = { item_id: it.id, output_index: it.outputIndex };
    s += this.ev('response.web_search_call.in_progress', loc);
    s += this.ev('response.web_search_call.searching', loc);
    s += this.ev('response.web_search_call.completed', loc);
    return s + this.closeCurrent();
  }

  private error(error: IrError): string {
    return streamErrorEvent('openai-responses', gatewayErrorOf(error), this.seq++);
  }

  /** Closes the current item (if any) and makes it the newest: `output_item.added` and all. */
  private open(kind: OpenItem['kind'], callId = '', name = '', search?: IrWebSearch): string {
    let s = this.closeCurrent();
    const it: OpenItem = {
      kind,
      id: itemId(ITEM_PREFIX[kind], this.id, this.items.length),
      outputIndex: this.items.length,
      text: '',
      signature: null,
      callId,
      name,
      closed: false,
      ...(search ? { search } : {}),
    };
    this.items.push(it);
    this.current = it;
    s += this.ev('response.output_item.added', {
      output_index: it.outputIndex,
      item: snapshot(it),
    });
    if (kind === 'message') {
      s += this.ev('response.content_part.added', {
        item_id: it.id,
        output_index: it.outputIndex,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      });
    }
    return s;
  }

  private closeCurrent(): string {
    const it = this.current;
    this.current = null;
    if (!it || it.closed) return '';
    it.closed = true;
    const loc = { item_id: it.id, output_index: it.outputIndex };
    let s = '';
    if (it.kind === 'message') {
      const part = { type: 'output_text', text: it.text, annotations: [], logprobs: [] };
      s += this.ev('response.output_text.done', {
        ...loc,
        content_index: 0,
        text: it.text,
        logprobs: [],
      });
      s += this.ev('response.content_part.done', { ...loc, content_index: 0, part });
    } else if (it.kind === 'reasoning') {
      if (it.text) {
        s += this.ev('response.reasoning_summary_text.done', {
          ...loc,
          summary_index: 0,
          text: it.text,
        });
        s += this.ev('response.reasoning_summary_part.done', {
          ...loc,
          summary_index: 0,
          part: { type: 'summary_text', text: it.text },
        });
      }
    } else if (it.kind === 'web_search_call') {
      // Its events were written when it opened.
    } else if (it.kind === 'custom_tool_call') {
      // The input arrives as JSON fragments of `{"input": …}`: it is sent whole, once complete.
      const input = customInput(it.text);
      s += this.ev('response.custom_tool_call_input.delta', { ...loc, delta: input });
      s += this.ev('response.custom_tool_call_input.done', { ...loc, input });
    } else {
      s += this.ev('response.function_call_arguments.done', { ...loc, arguments: it.text });
    }
    return (
      s + this.ev('response.output_item.done', { output_index: it.outputIndex, item: snapshot(it) })
    );
  }
}

/** An item as `output_item` events and the final response show it: contents only once closed. */
function snapshot(it: OpenItem): Json {
  if (it.kind === 'web_search_call') {
    const search = it.search ?? { id: it.id, query: '', results: [], error: null };
    return webSearchItem(search, it.id, it.closed);
  }
  if (it.kind === 'message') {
    return {
      id: it.id,
      type: 'message',
      status: it.closed ? 'completed' : 'in_progress',
      role: 'assistant',
      content: it.closed
        ? [{ type: 'output_text', text: it.text, annotations: [], logprobs: [] }]
        : [],
    };
  }
  if (it.kind === 'reasoning') {
    return {
      id: it.id,
      type: 'reasoning',
      summary: it.closed && it.text ? [{ type: 'summary_text', text: it.text }] : [],
      ...(it.closed && it.signature ? { encrypted_content: it.signature } : {}),
    };
  }
  if (it.kind === 'custom_tool_call') {
    return {
      id: it.id,
      type: 'custom_tool_call',
      status: it.closed ? 'completed' : 'in_progress',
      call_id: it.callId,
      name: it.name,
      input: it.closed ? customInput(it.text) : '',
    };
  }
  return {
    id: it.id,
    type: 'function_call',
    status: it.closed ? 'completed' : 'in_progress',
    call_id: it.callId,
    name: it.name,
    arguments: it.closed ? it.text : '',
  };
}
