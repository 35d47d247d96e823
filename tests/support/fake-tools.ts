// Scripted tool-call replies for the fake upstream, in each of the three formats, streamed with
// the arguments split into several deltas the way real providers send them.

/** One tool call the fake answers with (`FakeStep.toolCalls`). */
export interface FakeToolCall {
  /** Default: generated (`call_…` for OpenAI formats, `toolu_…` for Anthropic). */
  id?: string;
  name: string;
  /** An object is sent as its JSON text. */
  arguments: Record<string, unknown> | string;
}

type Json = Record<string, unknown>;
export type ToolRoute = 'chat' | 'responses' | 'messages';

interface Usage {
  input: number;
  output: number;
}

export interface ToolReply {
  route: ToolRoute;
  /** Response id (`chatcmpl-…`, `resp_…` or `msg_…`) and a unique suffix for item ids. */
  id: string;
  suffix: string;
  created: number;
  model: string;
  /** Text before the calls ('' for none). */
  text: string;
  calls: FakeToolCall[];
  usage: Usage;
  /** Argument deltas per call. */
  chunks: number;
}

const sse = (event: string, data: unknown): string =>
  `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

function argsOf(c: FakeToolCall): string {
  return typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments);
}

function callId(r: ToolReply, i: number): string {
  return r.calls[i]!.id ?? `${r.route === 'messages' ? 'toolu' : 'call'}_${r.suffix}_${i}`;
}

function pieces(s: string, n: number): string[] {
  const parts = Math.max(1, Math.min(n, s.length));
  const out: string[] = [];
  for (let i = 0; i < parts; i++) {
    out.push(s.slice(Math.floor((i * s.length) / parts), Math.floor(((i + 1) * s.length) / parts)));
  }
  return out.filter((p) => p !== '');
}

// --- whole bodies -----------------------------------------------------------------------------

export function toolReplyBody(r: ToolReply): Json {
  if (r.route === 'chat') {
    return {
      id: r.id,
      object: 'chat.completion',
      created: r.created,
      model: r.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: r.text === '' ? null : r.text,
            refusal: null,
            tool_calls: r.calls.map((c, i) => ({
              id: callId(r, i),
              type: 'function',
              function: { name: c.name, arguments: argsOf(c) },
            })),
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: {
        prompt_tokens: r.usage.input,
        completion_tokens: r.usage.output,
        total_tokens: r.usage.input + r.usage.output,
      },
    };
  }
  if (r.route === 'responses') return responseObject(r, 'completed', responseOutput(r));
  return {
    id: r.id,
    type: 'message',
    role: 'assistant',
    model: r.model,
    content: [
      ...(r.text === '' ? [] : [{ type: 'text', text: r.text }]),
      ...r.calls.map((c, i) => ({
        type: 'tool_use',
        id: callId(r, i),
        name: c.name,
        input: JSON.parse(argsOf(c)) as unknown,
      })),
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: r.usage.input, output_tokens: r.usage.output },
  };
}

function responseOutput(r: ToolReply): Json[] {
  const out: Json[] = [];
  if (r.text !== '') {
    out.push({
      id: `msg_${r.suffix}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: r.text, annotations: [] }],
    });
  }
  r.calls.forEach((c, i) => {
    out.push({
      id: `fc_${r.suffix}_${i}`,
      type: 'function_call',
      status: 'completed',
      call_id: callId(r, i),
      name: c.name,
      arguments: argsOf(c),
    });
  });
  return out;
}

function responseObject(r: ToolReply, status: string, output: Json[]): Json {
  return {
    id: r.id,
    object: 'response',
    created_at: r.created,
    status,
    error: null,
    incomplete_details: null,
    model: r.model,
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage:
      status === 'completed'
        ? {
            input_tokens: r.usage.input,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: r.usage.output,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: r.usage.input + r.usage.output,
          }
        : null,
  };
}

// --- streams ----------------------------------------------------------------------------------

export interface ToolStreamPlan {
  head: string;
  deltas: string[];
  tail: string;
}

export function toolReplyStream(r: ToolReply, includeUsage: boolean): ToolStreamPlan {
  if (r.route === 'chat') return chatStream(r, includeUsage);
  if (r.route === 'responses') return responsesStream(r);
  return messagesStream(r);
}

function chatStream(r: ToolReply, includeUsage: boolean): ToolStreamPlan {
  const chunk = (delta: Json, finish: string | null, extra: Json = {}): string =>
    `data: ${JSON.stringify({
      id: r.id,
      object: 'chat.completion.chunk',
      created: r.created,
      model: r.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...extra,
    })}\n\n`;
  const deltas: string[] = [];
  if (r.text !== '') deltas.push(chunk({ content: r.text }, null));
  r.calls.forEach((c, i) => {
    deltas.push(
      chunk(
        {
          tool_calls: [
            {
              index: i,
              id: callId(r, i),
              type: 'function',
              function: { name: c.name, arguments: '' },
            },
          ],
        },
        null,
      ),
    );
    for (const p of pieces(argsOf(c), r.chunks)) {
      deltas.push(chunk({ tool_calls: [{ index: i, function: { arguments: p } }] }, null));
    }
  });
  let tail = chunk({}, 'tool_calls');
  if (includeUsage) {
    tail += `data: ${JSON.stringify({
      id: r.id,
      object: 'chat.completion.chunk',
      created: r.created,
      model: r.model,
      choices: [],
      usage: {
        prompt_tokens: r.usage.input,
        completion_tokens: r.usage.output,
        total_tokens: r.usage.input + r.usage.output,
      },
    })}\n\n`;
  }
  return {
    head: chunk({ role: 'assistant', content: null }, null),
    deltas,
    tail: `${tail}data: [DONE]\n\n`,
  };
}

function responsesStream(r: ToolReply): ToolStreamPlan {
  let seq = 0;
  const ev = (type: string, fields: Json): string =>
    sse(type, { type, sequence_number: seq++, ...fields });
  const head =
    ev('response.created', { response: responseObject(r, 'in_progress', []) }) +
    ev('response.in_progress', { response: responseObject(r, 'in_progress', []) });
  const deltas: string[] = [];
  const done = responseOutput(r);
  let index = 0;
  if (r.text !== '') {
    const item = done[0]!;
    const loc = { item_id: item.id, output_index: 0, content_index: 0 };
    deltas.push(
      ev('response.output_item.added', {
        output_index: 0,
        item: { ...item, status: 'in_progress', content: [] },
      }) +
        ev('response.content_part.added', {
          ...loc,
          part: { type: 'output_text', text: '', annotations: [] },
        }) +
        ev('response.output_text.delta', { ...loc, delta: r.text }) +
        ev('response.output_text.done', { ...loc, text: r.text }) +
        ev('response.content_part.done', {
          ...loc,
          part: { type: 'output_text', text: r.text, annotations: [] },
        }) +
        ev('response.output_item.done', { output_index: 0, item }),
    );
    index = 1;
  }
  r.calls.forEach((c, i) => {
    const item = done[index + i]!;
    const output_index = index + i;
    deltas.push(
      ev('response.output_item.added', {
        output_index,
        item: { ...item, status: 'in_progress', arguments: '' },
      }),
    );
    for (const p of pieces(argsOf(c), r.chunks)) {
      deltas.push(
        ev('response.function_call_arguments.delta', { item_id: item.id, output_index, delta: p }),
      );
    }
    deltas.push(
      ev('response.function_call_arguments.done', {
        item_id: item.id,
        output_index,
        arguments: argsOf(c),
      }) + ev('response.output_item.done', { output_index, item }),
    );
  });
  const tail = ev('response.completed', { response: responseObject(r, 'completed', done) });
  return { head, deltas, tail };
}

function messagesStream(r: ToolReply): ToolStreamPlan {
  const head = sse('message_start', {
    type: 'message_start',
    message: {
      id: r.id,
      type: 'message',
      role: 'assistant',
      model: r.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: r.usage.input, output_tokens: 1 },
    },
  });
  const deltas: string[] = [];
  let index = 0;
  if (r.text !== '') {
    deltas.push(
      sse('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      }) +
        sse('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text: r.text },
        }) +
        sse('content_block_stop', { type: 'content_block_stop', index }),
    );
    index++;
  }
  r.calls.forEach((c, i) => {
    const block = index + i;
    deltas.push(
      sse('content_block_start', {
        type: 'content_block_start',
        index: block,
        content_block: { type: 'tool_use', id: callId(r, i), name: c.name, input: {} },
      }),
    );
    for (const p of pieces(argsOf(c), r.chunks)) {
      deltas.push(
        sse('content_block_delta', {
          type: 'content_block_delta',
          index: block,
          delta: { type: 'input_json_delta', partial_json: p },
        }),
      );
    }
    deltas.push(sse('content_block_stop', { type: 'content_block_stop', index: block }));
  });
  const tail =
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: r.usage.output },
    }) + sse('message_stop', { type: 'message_stop' });
  return { head, deltas, tail };
}
