// Anthropic Messages stream events (upstream) → IR events.
// https://docs.anthropic.com/en/api/messages-streaming
import { unreadableStreamError } from '../errors';
import { type IrEvent, incompleteError, type Json, num, obj, type StreamParser, str } from '../ir';
import { eventJson } from '../stream';
import { parseError, STOP_IN, usageIn } from './response';

export class AnthropicStreamParser implements StreamParser {
  private done = false;
  /** Indexes of tool_use blocks: only their JSON deltas are tool arguments. */
  private readonly tools = new Set<number>();

  push(event: string | null, data: string): IrEvent[] {
    const e = eventJson(data);
    if (e === undefined) return [];
    const type = str(e.type) ?? event;
    switch (type) {
      case 'message_start': {
        const m = obj(e.message) ?? {};
        return [
          {
            type: 'start',
            id: str(m.id) ?? '',
            model: str(m.model) ?? '',
            usage: usageIn(m.usage),
          },
        ];
      }
      case 'content_block_start':
        return this.blockStart(e);
      case 'content_block_delta':
        return this.blockDelta(e);
      case 'message_delta': {
        const d = obj(e.delta) ?? {};
        const usage = usageIn(e.usage);
        // message_delta's usage may omit input tokens: never report them as zero.
        if (obj(e.usage)?.input_tokens === undefined) usage.input = null;
        const out: IrEvent[] = [{ type: 'usage', usage }];
        if (d.stop_reason) {
          out.push({
            type: 'stop',
            stop: STOP_IN[str(d.stop_reason) ?? ''] ?? 'end',
            stopSequence: str(d.stop_sequence),
          });
        }
        return out;
      }
      case 'message_stop':
        this.done = true;
        return [];
      case 'error': {
        this.done = true;
        const err = parseError(500, e) ?? unreadableStreamError('api_error');
        return [{ type: 'error', error: err }];
      }
      default:
        return [];
    }
  }

  end(): IrEvent[] {
    return this.done ? [] : [incompleteError()];
  }

  private blockStart(e: Json): IrEvent[] {
    const b = obj(e.content_block) ?? {};
    const index = num(e.index) ?? 0;
    if (b.type === 'tool_use') {
      this.tools.add(index);
      return [{ type: 'tool_start', index, id: str(b.id) ?? '', name: str(b.name) ?? '' }];
    }
    if (b.type === 'text' && typeof b.text === 'string' && b.text !== '') {
      return [{ type: 'text', text: b.text }];
    }
    if (b.type === 'thinking' && typeof b.thinking === 'string' && b.thinking !== '') {
      return [{ type: 'reasoning', text: b.thinking }];
    }
    return [];
  }

  private blockDelta(e: Json): IrEvent[] {
    const d = obj(e.delta) ?? {};
    if (d.type === 'text_delta') return [{ type: 'text', text: str(d.text) ?? '' }];
    if (d.type === 'thinking_delta') return [{ type: 'reasoning', text: str(d.thinking) ?? '' }];
    if (d.type === 'signature_delta') {
      return [{ type: 'reasoning_signature', signature: str(d.signature) ?? '' }];
    }
    if (d.type === 'input_json_delta') {
      const index = num(e.index) ?? 0;
      if (!this.tools.has(index)) return [];
      return [{ type: 'tool_args', index, delta: str(d.partial_json) ?? '' }];
    }
    return [];
  }
}
