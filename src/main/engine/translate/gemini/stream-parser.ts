// Gemini `streamGenerateContent?alt=sse` chunks (upstream) → IR events. Each chunk is a whole
// GenerateContentResponse; function calls come whole, and the stream has no terminator other
// than a chunk with a finish reason.
import { unreadableStreamError } from '../errors';
import { arr, type IrEvent, incompleteError, obj, type StreamParser, str } from '../ir';
import { eventJson } from '../stream';
import { CallIds, partsIn } from './request';
import { idPrefix, parseError, stopOf, usageIn } from './response';

export class GeminiStreamParser implements StreamParser {
  private started = false;
  private stopped = false;
  private failed = false;
  private ids: CallIds | null = null;
  private tools = 0;

  push(_event: string | null, data: string): IrEvent[] {
    const c = eventJson(data);
    if (c === undefined) return [];
    if (obj(c.error) || Array.isArray(c)) {
      this.failed = true;
      return [
        { type: 'error', error: parseError(500, c) ?? unreadableStreamError('upstream_error') },
      ];
    }
    const out: IrEvent[] = [];
    if (!this.started) {
      this.started = true;
      this.ids = new CallIds(idPrefix(c));
      out.push({
        type: 'start',
        id: str(c.responseId) ?? '',
        model: str(c.modelVersion) ?? '',
        usage: null,
      });
    }
    const candidate = obj(arr(c.candidates)[0]);
    for (const p of arr(obj(candidate?.content)?.parts)) {
      const part = obj(p);
      if (part) this.part(part, out);
    }
    if (obj(c.usageMetadata)) out.push({ type: 'usage', usage: usageIn(c.usageMetadata) });
    const finish = str(candidate?.finishReason);
    const blocked = !candidate && str(obj(c.promptFeedback)?.blockReason);
    if ((finish || blocked) && !this.stopped) {
      this.stopped = true;
      const stop = blocked ? 'content_filter' : stopOf(finish ?? '', this.tools > 0);
      out.push({ type: 'stop', stop, stopSequence: null });
    }
    return out;
  }

  end(): IrEvent[] {
    return this.stopped || this.failed ? [] : [incompleteError()];
  }

  private part(p: Record<string, unknown>, out: IrEvent[]): void {
    for (const ir of partsIn(p, this.ids!, [])) {
      if (ir.type === 'text' && ir.text !== '') out.push({ type: 'text', text: ir.text });
      else if (ir.type === 'reasoning') {
        if (ir.text !== '') out.push({ type: 'reasoning', text: ir.text });
        if (ir.signature) out.push({ type: 'reasoning_signature', signature: ir.signature });
      } else if (ir.type === 'tool_call') {
        const index = this.tools++;
        out.push({ type: 'tool_start', index, id: ir.id, name: ir.name });
        out.push({ type: 'tool_args', index, delta: ir.arguments });
      }
    }
  }
}
