import type { ClientFormat } from '../../../shared/contract';

const ANTHROPIC_PING = 'event: ping\ndata: {"type": "ping"}\n\n';
/** An SSE comment: Chat Completions, Responses and Gemini (`alt=sse`) clients skip it. */
const SSE_COMMENT = ': keep-alive\n\n';

/** A keep-alive in the client's stream format: Anthropic's `ping` event, else an SSE comment. */
export function keepAliveEvent(format: ClientFormat): string {
  return format === 'anthropic' ? ANTHROPIC_PING : SSE_COMMENT;
}
