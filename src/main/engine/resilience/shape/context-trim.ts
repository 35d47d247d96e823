// Context editing (issue 17, opt-in): a 400 saying the prompt is too long is answered by sending
// the conversation again with its oldest whole turns removed — after the system prompt and the
// first user turn, never splitting a tool call from its result, always keeping the latest turn.
// Pure: error text and request in, the trimmed request (or null) out.
import { turnStarts } from '../../translate/turns';
import type { ErrorText } from './fix';

type Json = Record<string, unknown>;

const TOO_LONG =
  /context_length_exceeded|prompt is too long|maximum context length|context window|reduce the length of the (?:messages|input)|input is too long/i;

/** Whether a 400's text says the prompt does not fit the model's context window. */
export function isPromptTooLong(e: ErrorText): boolean {
  return e.code === 'context_length_exceeded' || TOO_LONG.test(e.message);
}

// Anthropic "prompt is too long: 210000 tokens > 200000 maximum"; OpenAI and vLLM "maximum context
// length is 128000 tokens. However, your messages resulted in 130000 tokens".
const ANTHROPIC_NUMBERS = /(\d+) tokens > (\d+) maximum/;
const OPENAI_NUMBERS =
  /maximum context length is (\d+) tokens(?:.*?(?:resulted in|requested) (\d+) tokens)?/is;

/** How much of the prompt fits, from the numbers the error gives; null when it gives none. */
export function fitRatio(e: ErrorText): number | null {
  const anthropic = ANTHROPIC_NUMBERS.exec(e.message);
  if (anthropic) return Number(anthropic[2]) / Number(anthropic[1]);
  const openai = OPENAI_NUMBERS.exec(e.message);
  if (openai?.[2]) return Number(openai[1]) / Number(openai[2]);
  return null;
}

/** The context window, in tokens, that the error says the prompt did not fit; null if unsaid. */
export function statedContextLimit(e: ErrorText): number | null {
  const m = ANTHROPIC_NUMBERS.exec(e.message);
  if (m) return Number(m[2]);
  const openai = OPENAI_NUMBERS.exec(e.message);
  return openai ? Number(openai[1]) : null;
}

function obj(v: unknown): Json | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
}

/** An Anthropic user message made only of tool results continues the turn before it. */
function onlyToolResults(content: unknown): boolean {
  return (
    Array.isArray(content) &&
    content.length > 0 &&
    content.every((b) => obj(b)?.type === 'tool_result')
  );
}

function isSystem(item: Json): boolean {
  return item.role === 'system' || item.role === 'developer';
}

/** Where a new turn starts: a user message that is not a tool result. */
function startsTurn(item: Json): boolean {
  if (item.role !== 'user') return false;
  if (item.type !== undefined && item.type !== 'message') return false;
  return !onlyToolResults(item.content);
}

/** The conversation's key: `messages` (Chat, Anthropic) or `input` (Responses). */
function conversationKey(body: Json): 'messages' | 'input' | null {
  if (Array.isArray(body.messages)) return 'messages';
  if (Array.isArray(body.input)) return 'input';
  return null;
}

/**
 * The request with its oldest droppable turns removed until the rest is about `ratio` of its size
 * (with a 10 % margin), or half of them when no ratio is known; null when nothing can go.
 */
export function trimConversation(
  body: Json,
  ratio: number | null,
): { body: Json; removed: number } | null {
  const key = conversationKey(body);
  if (!key) return null;
  const items = body[key] as unknown[];
  // Turn starts after the system prompt; the first turn is kept whole.
  const starts = turnStarts(
    items,
    (x) => isSystem(obj(x) ?? {}),
    (x) => startsTurn(obj(x) ?? {}),
  );
  if (starts.length < 3) return null;
  const droppable = starts.length - 2; // not the first turn, not the latest
  const sizes = items.map((x) => JSON.stringify(x)?.length ?? 0);
  const total = sizes.reduce((a, b) => a + b, 0);
  const target = ratio !== null && ratio > 0 && ratio < 1 ? total * ratio * 0.9 : null;
  let removed = 0;
  let size = total;
  while (removed < droppable) {
    const from = starts[1 + removed]!;
    const to = starts[2 + removed]!;
    for (let k = from; k < to; k++) size -= sizes[k]!;
    removed++;
    if (target === null ? removed >= Math.ceil(droppable / 2) : size <= target) break;
  }
  const cutFrom = starts[1]!;
  const cutTo = starts[1 + removed]!;
  return {
    body: { ...body, [key]: [...items.slice(0, cutFrom), ...items.slice(cutTo)] },
    removed,
  };
}
