// The response object and streaming events of the Open Responses specification, as checks
// written from its published required fields and types (https://www.openresponses.org, the
// ResponseResource, ItemField, content and streaming event models). Objects may carry more
// fields than listed, as in the specification; a required field that is missing, null where it
// may not be, or of another type is an error. `validateResponse` and `validateStreamEvent`
// return the errors, each with the path to the offending value; none means the value conforms.
//
// OpenAI extensions the specification does not list (freeform `custom` tools, their
// `custom_tool_call` items and `response.custom_tool_call_input.*` events, which Codex uses)
// are accepted in their OpenAI shape, so every body Breakwater writes can be checked.

type Check = (v: unknown, path: string, errors: string[]) => void;
type Shape = Record<string, Check>;

const kind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

const typed =
  (name: string, test: (v: unknown) => boolean): Check =>
  (v, path, errors) => {
    if (!test(v)) errors.push(`${path}: expected ${name}, got ${kind(v)} ${JSON.stringify(v)}`);
  };

const string = typed('string', (v) => typeof v === 'string');
const integer = typed('integer', (v) => Number.isInteger(v));
const number = typed('number', (v) => typeof v === 'number' && Number.isFinite(v));
const boolean = typed('boolean', (v) => typeof v === 'boolean');
const anyObject = typed('object', (v) => kind(v) === 'object');
const literal = (value: string): Check => typed(JSON.stringify(value), (v) => v === value);
const oneOf = (...values: string[]): Check =>
  typed(`one of ${values.join('|')}`, (v) => values.includes(v as string));

const nullable =
  (check: Check): Check =>
  (v, path, errors) => {
    if (v !== null) check(v, path, errors);
  };

const array =
  (item: Check): Check =>
  (v, path, errors) => {
    if (!Array.isArray(v)) {
      errors.push(`${path}: expected array, got ${kind(v)}`);
      return;
    }
    for (const [i, x] of v.entries()) item(x, `${path}[${i}]`, errors);
  };

const record =
  (value: Check): Check =>
  (v, path, errors) => {
    if (kind(v) !== 'object') {
      errors.push(`${path}: expected object, got ${kind(v)}`);
      return;
    }
    for (const [k, x] of Object.entries(v as object)) value(x, `${path}.${k}`, errors);
  };

/** An object with these required fields and these optional ones (checked when present). */
const object =
  (required: Shape, optional: Shape = {}): Check =>
  (v, path, errors) => {
    if (kind(v) !== 'object') {
      errors.push(`${path}: expected object, got ${kind(v)}`);
      return;
    }
    const o = v as Record<string, unknown>;
    for (const [k, check] of Object.entries(required)) {
      if (!(k in o)) errors.push(`${path}.${k}: required`);
      else check(o[k], `${path}.${k}`, errors);
    }
    for (const [k, check] of Object.entries(optional)) {
      if (o[k] !== undefined) check(o[k], `${path}.${k}`, errors);
    }
  };

/** A union told apart by its `type` field. */
const byType =
  (variants: Record<string, Check>): Check =>
  (v, path, errors) => {
    const type = kind(v) === 'object' ? (v as { type?: unknown }).type : undefined;
    const check = typeof type === 'string' ? variants[type] : undefined;
    if (check) check(v, path, errors);
    else {
      errors.push(`${path}.type: expected one of ${Object.keys(variants).join('|')}, got ${type}`);
    }
  };

/** Passes when any of the checks passes; otherwise reports the errors of each. */
const anyOf =
  (...checks: Check[]): Check =>
  (v, path, errors) => {
    const all: string[][] = checks.map((c) => {
      const e: string[] = [];
      c(v, path, e);
      return e;
    });
    if (all.every((e) => e.length > 0)) errors.push(...all.flat());
  };

// --- content -----------------------------------------------------------------------------------

const topLogProb = object({ token: string, logprob: number, bytes: array(integer) });
const logProb = object({
  token: string,
  logprob: number,
  bytes: array(integer),
  top_logprobs: array(topLogProb),
});
const annotation = byType({
  url_citation: object({
    type: string,
    url: string,
    start_index: integer,
    end_index: integer,
    title: string,
  }),
});
const outputText = object(
  { type: literal('output_text'), text: string, annotations: array(annotation) },
  { logprobs: array(logProb) },
);
const textPart = (type: string) => object({ type: literal(type), text: string });

const contentPart = byType({
  input_text: textPart('input_text'),
  output_text: outputText,
  text: textPart('text'),
  summary_text: textPart('summary_text'),
  reasoning_text: textPart('reasoning_text'),
  refusal: object({ type: literal('refusal'), refusal: string }),
  input_image: object({
    type: literal('input_image'),
    image_url: nullable(string),
    detail: oneOf('low', 'high', 'auto'),
  }),
  input_file: object({ type: literal('input_file') }, { filename: string, file_url: string }),
});

// --- output items ------------------------------------------------------------------------------

const itemStatus = oneOf('in_progress', 'completed', 'incomplete');

const item = byType({
  message: object({
    type: literal('message'),
    id: string,
    status: itemStatus,
    role: oneOf('user', 'assistant', 'system', 'developer'),
    content: array(contentPart),
  }),
  function_call: object({
    type: literal('function_call'),
    id: string,
    call_id: string,
    name: string,
    arguments: string,
    status: itemStatus,
  }),
  function_call_output: object({
    type: literal('function_call_output'),
    id: string,
    call_id: string,
    output: anyOf(string, array(contentPart)),
    status: itemStatus,
  }),
  reasoning: object(
    { type: literal('reasoning'), id: string, summary: array(contentPart) },
    { content: array(contentPart), encrypted_content: string },
  ),
  // OpenAI extension (freeform tools).
  custom_tool_call: object(
    { type: literal('custom_tool_call'), call_id: string, name: string, input: string },
    { id: string, status: itemStatus },
  ),
});

// --- the response object -----------------------------------------------------------------------

const tool = byType({
  function: object({
    type: literal('function'),
    name: string,
    description: nullable(string),
    parameters: nullable(anyObject),
    strict: nullable(boolean),
  }),
  // OpenAI extension (freeform tools).
  custom: object(
    { type: literal('custom'), name: string },
    { description: string, format: anyObject },
  ),
});

const toolChoiceValue = oneOf('none', 'auto', 'required');
const functionToolChoice = object({ type: literal('function') }, { name: string });
const toolChoice = anyOf(
  toolChoiceValue,
  byType({
    function: functionToolChoice,
    allowed_tools: object({
      type: literal('allowed_tools'),
      tools: array(functionToolChoice),
      mode: toolChoiceValue,
    }),
  }),
);

const textField = object(
  {
    format: byType({
      text: object({ type: literal('text') }),
      json_object: object({ type: literal('json_object') }),
      json_schema: object({
        type: literal('json_schema'),
        name: string,
        description: nullable(string),
        schema: anyObject,
        strict: boolean,
      }),
    }),
  },
  { verbosity: oneOf('low', 'medium', 'high') },
);

// The enum lists none…xhigh; its value descriptions also document `minimal`, which OpenAI takes.
const effort = oneOf('none', 'minimal', 'low', 'medium', 'high', 'xhigh');
const reasoning = object({
  effort: nullable(effort),
  summary: nullable(oneOf('concise', 'detailed', 'auto')),
});

const usage = object({
  input_tokens: integer,
  output_tokens: integer,
  total_tokens: integer,
  input_tokens_details: object({ cached_tokens: integer }),
  output_tokens_details: object({ reasoning_tokens: integer }),
});

const responseResource = object({
  id: string,
  object: literal('response'),
  created_at: integer,
  completed_at: nullable(integer),
  status: string,
  incomplete_details: nullable(object({ reason: string })),
  model: string,
  previous_response_id: nullable(string),
  instructions: nullable(anyOf(string, array(anyObject))),
  output: array(item),
  error: nullable(object({ code: string, message: string })),
  tools: array(tool),
  tool_choice: toolChoice,
  truncation: oneOf('auto', 'disabled'),
  parallel_tool_calls: boolean,
  text: textField,
  top_p: number,
  presence_penalty: number,
  frequency_penalty: number,
  top_logprobs: integer,
  temperature: number,
  reasoning: nullable(reasoning),
  user: nullable(string),
  usage: nullable(usage),
  max_output_tokens: nullable(integer),
  max_tool_calls: nullable(integer),
  store: boolean,
  background: boolean,
  service_tier: string,
  metadata: record(string),
  safety_identifier: nullable(string),
  prompt_cache_key: nullable(string),
});

// --- streaming events --------------------------------------------------------------------------

const seq = { sequence_number: integer };
const at = { ...seq, item_id: string, output_index: integer };
const inContent = { ...at, content_index: integer };
const inSummary = { ...at, summary_index: integer };
const obfuscation = { obfuscation: string };
const event = (type: string, required: Shape, optional: Shape = {}): [string, Check] => [
  type,
  object({ type: literal(type), ...required }, optional),
];
const lifecycle = (type: string) => event(type, { ...seq, response: responseResource });

const events: Record<string, Check> = Object.fromEntries([
  lifecycle('response.created'),
  lifecycle('response.queued'),
  lifecycle('response.in_progress'),
  lifecycle('response.completed'),
  lifecycle('response.failed'),
  lifecycle('response.incomplete'),
  event('response.output_item.added', { ...seq, output_index: integer, item: nullable(item) }),
  event('response.output_item.done', { ...seq, output_index: integer, item: nullable(item) }),
  event('response.content_part.added', { ...inContent, part: contentPart }),
  event('response.content_part.done', { ...inContent, part: contentPart }),
  event('response.reasoning_summary_part.added', { ...inSummary, part: contentPart }),
  event('response.reasoning_summary_part.done', { ...inSummary, part: contentPart }),
  event(
    'response.output_text.delta',
    { ...inContent, delta: string },
    { logprobs: array(logProb), ...obfuscation },
  ),
  event('response.output_text.done', { ...inContent, text: string }, { logprobs: array(logProb) }),
  event('response.refusal.delta', { ...inContent, delta: string }),
  event('response.refusal.done', { ...inContent, refusal: string }),
  event('response.reasoning.delta', { ...inContent, delta: string }, obfuscation),
  event('response.reasoning.done', { ...inContent, text: string }),
  event('response.reasoning_summary_text.delta', { ...inSummary, delta: string }, obfuscation),
  event('response.reasoning_summary_text.done', { ...inSummary, text: string }),
  event('response.output_text.annotation.added', {
    ...inContent,
    annotation_index: integer,
    annotation: nullable(annotation),
  }),
  event('response.function_call_arguments.delta', { ...at, delta: string }, obfuscation),
  event('response.function_call_arguments.done', { ...at, arguments: string }),
  event('error', {
    ...seq,
    error: object({
      type: string,
      code: nullable(string),
      message: string,
      param: nullable(string),
    }),
  }),
  // OpenAI extension (freeform tools).
  event('response.custom_tool_call_input.delta', { ...at, delta: string }),
  event('response.custom_tool_call_input.done', { ...at, input: string }),
]);

const streamEvent = byType(events);

/** The errors of a response object (the non-streaming body, or a lifecycle event's `response`). */
export function validateResponse(body: unknown): string[] {
  const errors: string[] = [];
  responseResource(body, 'response', errors);
  return errors;
}

/** The errors of one streaming event's data; an event type the specification lacks is one. */
export function validateStreamEvent(data: unknown): string[] {
  const errors: string[] = [];
  streamEvent(data, 'event', errors);
  return errors;
}
