// Whole (non-streamed) OpenAI Responses answers and error bodies ↔ IR, and the response object,
// usage and stop mapping the stream modules share.
// https://platform.openai.com/docs/api-reference/responses/object
import { openAiErrorOf } from '../errors';
import {
  arr,
  customInput,
  emptyUsage,
  type IrError,
  type IrResponse,
  type IrStop,
  type IrUsage,
  type Json,
  num,
  obj,
  str,
  textOf,
} from '../ir';
import { DEFAULT_ECHO } from './echo';
import { contentParts } from './request';

export function usageIn(u: unknown): IrUsage {
  const usage = obj(u);
  const out = emptyUsage();
  if (!usage) return out;
  out.input = num(usage.input_tokens);
  out.output = num(usage.output_tokens);
  out.cached = num(obj(usage.input_tokens_details)?.cached_tokens);
  out.reasoning = num(obj(usage.output_tokens_details)?.reasoning_tokens);
  return out;
}

export function usageOut(u: IrUsage): Json {
  const input = u.input ?? 0;
  const output = u.output ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cached ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
    total_tokens: input + output,
  };
}

/** The IR stop reason of a response object, which says only whether it is incomplete and why. */
export function stopOf(body: Json, hasTool: boolean): IrStop {
  if (body.status === 'incomplete') {
    const reason = str(obj(body.incomplete_details)?.reason);
    return reason === 'content_filter' ? 'content_filter' : 'max_tokens';
  }
  return hasTool ? 'tool_use' : 'end';
}

function outputParts(output: unknown): IrResponse['parts'] {
  const parts: IrResponse['parts'] = [];
  for (const o of arr(output)) {
    const item = obj(o);
    if (!item) continue;
    if (item.type === 'message') {
      const text = textOf(contentParts(item.content, []));
      if (text !== '') parts.push({ type: 'text', text });
    } else if (item.type === 'function_call') {
      parts.push({
        type: 'tool_call',
        id: str(item.call_id) ?? '',
        name: str(item.name) ?? '',
        arguments: str(item.arguments) ?? '',
      });
    } else if (item.type === 'reasoning') {
      parts.push({
        type: 'reasoning',
        text: arr(item.summary)
          .map((s) => str(obj(s)?.text) ?? '')
          .join('\n\n'),
        signature: str(item.encrypted_content),
      });
    }
  }
  return parts;
}

export function parseResponse(body: Json): IrResponse {
  const parts = outputParts(body.output);
  return {
    id: str(body.id) ?? '',
    model: str(body.model) ?? '',
    parts,
    stop: stopOf(
      body,
      parts.some((p) => p.type === 'tool_call'),
    ),
    stopSequence: null,
    usage: usageIn(body.usage),
  };
}

/** A response's own state; the request's part of the envelope comes from its echo. */
export interface Envelope {
  id: string;
  model: string;
  createdAt: number;
  /** When the answer ended (seconds); unused while it is in progress. */
  completedAt: number;
  status: 'in_progress' | 'completed';
  output: Json[];
  usage: Json | null;
  stop: IrStop | null;
}

/** A response object; a completed one whose stop cut the answer short is `incomplete`. */
export function responseObject(e: Envelope, echo: Readonly<Json> = DEFAULT_ECHO): Json {
  const incomplete = e.stop === 'max_tokens' || e.stop === 'content_filter';
  const completed = e.status === 'completed' && !incomplete;
  return {
    id: e.id,
    object: 'response',
    created_at: e.createdAt,
    status: e.status === 'completed' && incomplete ? 'incomplete' : e.status,
    completed_at: completed ? e.completedAt : null,
    error: null,
    incomplete_details: incomplete
      ? { reason: e.stop === 'max_tokens' ? 'max_output_tokens' : 'content_filter' }
      : null,
    model: e.model,
    output: e.output,
    usage: e.usage,
    ...echo,
  };
}

/** An output item's id, made from the response's id and the item's place in the output. */
export const itemId = (prefix: string, responseId: string, n: number): string =>
  `${prefix}_${responseId.replace(/[^A-Za-z0-9]/g, '').slice(-24)}${n}`;

const PART_PREFIX = { text: 'msg', reasoning: 'rs', tool_call: 'fc' } as const;

function outputItem(p: IrResponse['parts'][number], id: string, custom: ReadonlySet<string>): Json {
  if (p.type === 'text') {
    return {
      id,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: p.text, annotations: [], logprobs: [] }],
    };
  }
  if (p.type === 'reasoning') {
    return {
      id,
      type: 'reasoning',
      summary: p.text ? [{ type: 'summary_text', text: p.text }] : [],
      ...(p.signature ? { encrypted_content: p.signature } : {}),
    };
  }
  if (custom.has(p.name)) {
    return {
      id,
      type: 'custom_tool_call',
      status: 'completed',
      call_id: p.id,
      name: p.name,
      input: customInput(p.arguments),
    };
  }
  return {
    id,
    type: 'function_call',
    status: 'completed',
    call_id: p.id,
    name: p.name,
    arguments: p.arguments,
  };
}

export interface ResponseOptions {
  createdAt: number;
  completedAt: number;
  /** Names of the request's freeform tools, whose calls are `custom_tool_call` items. */
  custom?: ReadonlySet<string>;
  /** The request's fields the envelope repeats (`responseEcho`). */
  echo?: Readonly<Json>;
}

export function emitResponse(ir: IrResponse, opts: ResponseOptions): Json {
  const custom = opts.custom ?? new Set<string>();
  const output = ir.parts.map((p, i) =>
    outputItem(p, itemId(PART_PREFIX[p.type], ir.id, i), custom),
  );
  return responseObject(
    {
      id: ir.id,
      model: ir.model,
      createdAt: opts.createdAt,
      completedAt: opts.completedAt,
      status: 'completed',
      output,
      usage: usageOut(ir.usage),
      stop: ir.stop,
    },
    opts.echo,
  );
}

export function parseError(status: number, body: unknown): IrError | null {
  const root = obj(body);
  return openAiErrorOf(status, obj(root?.error) ?? (root?.type === 'error' ? root : null));
}
