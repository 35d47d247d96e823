// Chat Completions stream chunks (upstream) → IR events.
// https://platform.openai.com/docs/api-reference/chat-streaming
import { unreadableStreamError } from '../errors';
import {
  arr,
  emptyUsage,
  type IrEvent,
  incompleteError,
  type Json,
  num,
  obj,
  type StreamParser,
  str,
} from '../ir';
import { eventJson } from '../stream';
import { parseError, STOP_IN, usageIn, withTier } from './response';

export class ChatStreamParser implements StreamParser {
  private started = false;
  private done = false;
  private stopped = false;
  /** Tool call indexes seen: the first chunk of each starts the call. */
  private readonly known = new Set<number>();
  /** Indexes for tool calls that come without one, clear of any real index. */
  private nextAnon = 1000;

  push(_event: string | null, data: string): IrEvent[] {
    if (data === '[DONE]') {
      this.done = true;
      return [];
    }
    const c = eventJson(data);
    if (c === undefined) return [];
    const out: IrEvent[] = [];
    if (obj(c.error)) {
      this.done = true;
      return [
        { type: 'error', error: parseError(500, c) ?? unreadableStreamError('upstream_error') },
      ];
    }
    if (!this.started) {
      this.started = true;
      const usage = withTier(emptyUsage(), c);
      out.push({
        type: 'start',
        id: str(c.id) ?? '',
        model: str(c.model) ?? '',
        usage: usage.serviceTier === undefined ? null : usage,
      });
    }
    const choice = obj(arr(c.choices)[0]);
    if (choice) this.choice(choice, out);
    if (obj(c.usage)) out.push({ type: 'usage', usage: usageIn(c.usage) });
    return out;
  }

  end(): IrEvent[] {
    return this.done || this.stopped ? [] : [incompleteError()];
  }

  private choice(choice: Json, out: IrEvent[]): void {
    const d = obj(choice.delta) ?? {};
    const reasoning = str(d.reasoning_content) ?? str(d.reasoning);
    if (reasoning) out.push({ type: 'reasoning', text: reasoning });
    if (typeof d.content === 'string' && d.content !== '') {
      out.push({ type: 'text', text: d.content });
    }
    for (const t of arr(d.tool_calls)) {
      const tc = obj(t);
      if (!tc) continue;
      const fn = obj(tc.function) ?? {};
      const index = num(tc.index) ?? this.nextAnon++;
      if (!this.known.has(index)) {
        this.known.add(index);
        out.push({
          type: 'tool_start',
          index,
          id: str(tc.id) ?? `call_${index}`,
          name: str(fn.name) ?? '',
        });
      }
      const args = str(fn.arguments);
      if (args) out.push({ type: 'tool_args', index, delta: args });
    }
    const finish = str(choice.finish_reason);
    if (finish) {
      this.stopped = true;
      out.push({ type: 'stop', stop: STOP_IN[finish] ?? 'end', stopSequence: null });
    }
  }
}
