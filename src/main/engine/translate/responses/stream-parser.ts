// OpenAI Responses stream events (upstream) → IR events.
// https://platform.openai.com/docs/api-reference/responses-streaming
import { unreadableStreamError } from '../errors';
import { type IrEvent, incompleteError, type Json, num, obj, type StreamParser, str } from '../ir';
import { eventJson } from '../stream';
import { parseError, stopOf, usageIn } from './response';

export class ResponsesStreamParser implements StreamParser {
  private done = false;
  private sawTool = false;

  push(event: string | null, data: string): IrEvent[] {
    const e = eventJson(data);
    if (e === undefined) return [];
    const type = str(e.type) ?? event;
    switch (type) {
      case 'response.created': {
        const r = obj(e.response) ?? {};
        return [{ type: 'start', id: str(r.id) ?? '', model: str(r.model) ?? '', usage: null }];
      }
      case 'response.output_item.added':
        return this.itemAdded(e);
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        return [{ type: 'text', text: str(e.delta) ?? '' }];
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        return [{ type: 'reasoning', text: str(e.delta) ?? '' }];
      case 'response.function_call_arguments.delta':
        return [{ type: 'tool_args', index: num(e.output_index) ?? 0, delta: str(e.delta) ?? '' }];
      case 'response.output_item.done': {
        const item = obj(e.item) ?? {};
        if (item.type === 'reasoning' && typeof item.encrypted_content === 'string') {
          return [{ type: 'reasoning_signature', signature: item.encrypted_content }];
        }
        return [];
      }
      case 'response.completed':
      case 'response.incomplete': {
        this.done = true;
        const r = obj(e.response) ?? {};
        return [
          { type: 'usage', usage: usageIn(r.usage) },
          { type: 'stop', stop: stopOf(r, this.sawTool), stopSequence: null },
        ];
      }
      case 'response.failed': {
        this.done = true;
        const err = obj(obj(e.response)?.error) ?? {};
        return [
          {
            type: 'error',
            error: {
              status: 500,
              kind: 'upstream',
              code: str(err.code) ?? 'response_failed',
              message: str(err.message) ?? 'the response failed',
            },
          },
        ];
      }
      case 'error':
        this.done = true;
        return [
          { type: 'error', error: parseError(500, e) ?? unreadableStreamError('upstream_error') },
        ];
      default:
        return [];
    }
  }

  end(): IrEvent[] {
    return this.done ? [] : [incompleteError()];
  }

  /** Only function calls start something in IR: messages and reasoning begin with their text. */
  private itemAdded(e: Json): IrEvent[] {
    const item = obj(e.item) ?? {};
    if (item.type !== 'function_call') return [];
    this.sawTool = true;
    const index = num(e.output_index) ?? 0;
    const out: IrEvent[] = [
      { type: 'tool_start', index, id: str(item.call_id) ?? '', name: str(item.name) ?? '' },
    ];
    if (typeof item.arguments === 'string' && item.arguments !== '') {
      out.push({ type: 'tool_args', index, delta: item.arguments });
    }
    return out;
  }
}
