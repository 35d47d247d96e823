// IR events → Gemini `streamGenerateContent?alt=sse` chunks (client). Text and thoughts go out
// as they come; a function call goes out whole (Gemini never streams one in pieces) once its
// arguments are complete, and the finish reason with the usage closes the stream.
import { streamErrorEvent } from '../../wire/client-errors';
import { gatewayErrorOf } from '../errors';
import {
  argumentsObject,
  emptyUsage,
  type IrEvent,
  type IrStop,
  type IrWebSearch,
  type Json,
  mergeIrUsage,
  type StreamWriter,
} from '../ir';
import { FINISH_OUT, usageOut } from './response';
import { groundingMetadata } from './web-search';

export class GeminiStreamWriter implements StreamWriter {
  private id = '';
  private model = '';
  private stop: IrStop | null = null;
  private readonly usage = emptyUsage();
  /** Calls whose arguments may still grow, by the IR's index. */
  private readonly pending = new Map<number, { id: string; name: string; args: string }>();
  private readonly searches: IrWebSearch[] = [];

  write(ev: IrEvent): string {
    switch (ev.type) {
      case 'start':
        this.id = ev.id;
        this.model = ev.model;
        if (ev.usage) mergeIrUsage(this.usage, ev.usage);
        return '';
      case 'tool_start':
        this.pending.set(ev.index, { id: ev.id, name: ev.name, args: '' });
        return '';
      case 'tool_args': {
        const call = this.pending.get(ev.index);
        if (call) call.args += ev.delta;
        return '';
      }
      case 'usage':
        mergeIrUsage(this.usage, ev.usage);
        return '';
      case 'web_search':
        // Grounding metadata goes out with the last chunk, as Gemini sends it.
        this.searches.push(ev.search);
        return '';
      case 'stop':
        this.stop ??= ev.stop;
        return '';
      case 'error':
        return streamErrorEvent('gemini', gatewayErrorOf(ev.error));
      case 'text':
        return ev.text === '' ? '' : this.chunk([{ text: ev.text }]);
      case 'reasoning':
        return ev.text === '' ? '' : this.chunk([{ text: ev.text, thought: true }]);
      case 'reasoning_signature':
        return this.chunk([{ text: '', thought: true, thoughtSignature: ev.signature }]);
    }
  }

  finish(): string {
    const parts = this.calls();
    if (parts.length === 0) parts.push({ text: '' });
    const stop = this.stop ?? 'end';
    return this.chunk(parts, FINISH_OUT[stop], usageOut(this.usage));
  }

  private calls(): Json[] {
    const parts = [...this.pending.values()].map((c) => ({
      functionCall: { id: c.id, name: c.name, args: argumentsObject(c.args) },
    }));
    this.pending.clear();
    return parts;
  }

  private chunk(parts: Json[], finishReason?: string, usage?: Json): string {
    // Calls are complete once anything else follows them.
    const before = finishReason ? [] : this.calls();
    const candidate: Json = { content: { role: 'model', parts: [...before, ...parts] }, index: 0 };
    if (finishReason) candidate.finishReason = finishReason;
    if (finishReason && this.searches.length > 0) {
      candidate.groundingMetadata = groundingMetadata(this.searches);
    }
    return `data: ${JSON.stringify({
      candidates: [candidate],
      ...(usage ? { usageMetadata: usage } : {}),
      modelVersion: this.model,
      responseId: this.id,
    })}\n\n`;
  }
}
