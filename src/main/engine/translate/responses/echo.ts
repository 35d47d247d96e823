// What a Responses answer repeats of its request. The response object restates the parameters
// it was generated with; a value the request left out (or that the translation did not carry)
// is the specification's default, so a strict client reads what was actually in effect.
// https://www.openresponses.org/reference (ResponseResource)
import { arr, type Json, num, obj, str } from '../ir';

const TOOL_CHOICES = new Set(['auto', 'none', 'required']);
const EFFORTS = new Set(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']);
const SUMMARIES = new Set(['auto', 'concise', 'detailed']);
const VERBOSITIES = new Set(['low', 'medium', 'high']);

/** Function tools in the response's shape (every field present); freeform tools as sent. */
function toolEcho(t: unknown): Json | null {
  const tool = obj(t);
  const name = str(tool?.name);
  if (!tool || name === null) return null;
  if (tool.type === 'function') {
    return {
      type: 'function',
      name,
      description: str(tool.description),
      parameters: obj(tool.parameters),
      strict: typeof tool.strict === 'boolean' ? tool.strict : null,
    };
  }
  if (tool.type === 'custom') {
    return {
      type: 'custom',
      name,
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      ...(obj(tool.format) ? { format: tool.format } : {}),
    };
  }
  // Hosted tools were dropped by the translation (and named in X-Breakwater-Dropped): the model
  // never had them, so the response does not list them.
  return null;
}

/** The tool choice the translation carried: a choice it could not carry left the default. */
function toolChoiceEcho(tc: unknown): Json | string {
  if (typeof tc === 'string' && TOOL_CHOICES.has(tc)) return tc;
  const choice = obj(tc);
  if (choice?.type === 'function' && typeof choice.name === 'string') {
    return { type: 'function', name: choice.name };
  }
  return 'auto';
}

function textEcho(t: unknown): Json {
  const text = obj(t);
  const format = obj(text?.format);
  let out: Json = { type: 'text' };
  if (format?.type === 'json_object') out = { type: 'json_object' };
  else if (format?.type === 'json_schema') {
    out = {
      type: 'json_schema',
      name: str(format.name) ?? 'response',
      description: str(format.description),
      schema: obj(format.schema) ?? {},
      strict: format.strict === true,
    };
  }
  const verbosity = str(text?.verbosity);
  return verbosity !== null && VERBOSITIES.has(verbosity)
    ? { format: out, verbosity }
    : { format: out };
}

function reasoningEcho(r: unknown): Json | null {
  const reasoning = obj(r);
  if (!reasoning) return null;
  const effort = str(reasoning.effort);
  const summary = str(reasoning.summary);
  return {
    effort: effort !== null && EFFORTS.has(effort) ? effort : null,
    summary: summary !== null && SUMMARIES.has(summary) ? summary : null,
  };
}

/** Metadata is a map of strings; anything else in it could not have been accepted. */
function metadataEcho(m: unknown): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(obj(m) ?? {})) if (typeof v === 'string') out[k] = v;
  return out;
}

const integer = (v: unknown): number | null => {
  const n = num(v);
  return n !== null && Number.isInteger(n) ? n : null;
};

/**
 * The request's fields a Responses answer repeats, read from the client's parsed body, with the
 * specification's defaults for what it left out. `store` defaults to false rather than true:
 * Breakwater keeps no responses, so none can be retrieved later. A request with
 * `previous_response_id` or `background` never gets here (the translation refuses it).
 */
export function responseEcho(body: Json): Json {
  return {
    previous_response_id: null,
    instructions: str(body.instructions),
    tools: arr(body.tools)
      .map(toolEcho)
      .filter((t) => t !== null),
    tool_choice: toolChoiceEcho(body.tool_choice),
    parallel_tool_calls:
      typeof body.parallel_tool_calls === 'boolean' ? body.parallel_tool_calls : true,
    temperature: num(body.temperature) ?? 1,
    top_p: num(body.top_p) ?? 1,
    // Not carried to other APIs: the defaults were in effect.
    presence_penalty: 0,
    frequency_penalty: 0,
    top_logprobs: 0,
    max_tool_calls: null,
    max_output_tokens: integer(body.max_output_tokens),
    text: textEcho(body.text),
    reasoning: reasoningEcho(body.reasoning),
    truncation: body.truncation === 'auto' ? 'auto' : 'disabled',
    store: body.store === true,
    background: false,
    service_tier: str(body.service_tier) ?? 'default',
    prompt_cache_key: str(body.prompt_cache_key),
    safety_identifier: str(body.safety_identifier),
    user: str(body.user),
    metadata: metadataEcho(body.metadata),
  };
}

/** The envelope of a response whose request is not known: every field at its default. */
export const DEFAULT_ECHO: Readonly<Json> = Object.freeze(responseEcho({}));
