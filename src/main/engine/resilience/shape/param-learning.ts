// Parameter learning (issue 17): a 400 that names an unsupported parameter or value is read into
// a fix — drop, rename, or clamp to the range the error states. Pure: error text and request in,
// a fix that changes this request (or null) out. Unknown 400s get null and are relayed as today.

import type { ErrorText, ShapeFix } from './fix';
import { applyFix } from './surgery';

/**
 * Only optional tuning parameters are ever dropped: the request means the same without them. A
 * 400 naming anything else (messages, tools, the model) is the client's to fix.
 */
const DROPPABLE = new Set([
  'temperature',
  'top_p',
  'top_k',
  'min_p',
  'presence_penalty',
  'frequency_penalty',
  'repetition_penalty',
  'logprobs',
  'top_logprobs',
  'logit_bias',
  'seed',
  'n',
  'parallel_tool_calls',
  'stream_options',
  'service_tier',
  'store',
  'metadata',
  'user',
  'prompt_cache_key',
  'prompt_cache_retention',
  'safety_identifier',
  'verbosity',
  'reasoning_effort',
  'reasoning_format',
  'reasoning',
  'thinking',
  'include',
  'truncation',
  'speed',
  'prediction',
  'web_search_options',
]);

/** Parameters the effort clamp owns: their value errors are its to read. */
const EFFORT_PARAMS = new Set(['reasoning_effort', 'reasoning.effort', 'output_config.effort']);

const MAX_TOKEN_PARAMS = new Set(['max_tokens', 'max_completion_tokens', 'max_output_tokens']);

const drop = (param: string): ShapeFix | null =>
  DROPPABLE.has(param) ? { kind: 'drop', mechanism: 'parameter', param } : null;

const range = (param: string, bound: 'min' | 'max', value: number): ShapeFix =>
  ({ kind: 'range', mechanism: 'parameter', param, [bound]: value }) as ShapeFix;

type Rule = (e: ErrorText) => ShapeFix | null;

/** Each rule reads one family of wordings; the first whose fix changes the request wins. */
const RULES: readonly Rule[] = [
  // OpenAI: "Unsupported parameter: 'max_tokens' is not supported with this model. Use
  // 'max_completion_tokens' instead." / "… 'temperature' is not supported with this model."
  (e) => {
    const m =
      /Unsupported parameter: '([\w.]+)' is not supported[^.]*\.(?:\s*Use '([\w.]+)' instead)?/.exec(
        e.message,
      );
    if (!m) return null;
    if (m[2]) return { kind: 'rename', mechanism: 'parameter', param: m[1]!, to: m[2] };
    return drop(m[1]!);
  },
  // OpenAI: "Unsupported value: 'temperature' does not support 0.2 with this model. Only the
  // default (1) value is supported." The default applies once the parameter is gone.
  (e) => {
    const m = /Unsupported value: '([\w.]+)' does not support/.exec(e.message);
    return m && !EFFORT_PARAMS.has(m[1]!) ? drop(m[1]!) : null;
  },
  // OpenAI: "The 'stream_options' parameter is only allowed when 'stream' is enabled."
  (e) => {
    const m = /The '([\w.]+)' parameter is only allowed when/.exec(e.message);
    return m ? drop(m[1]!) : null;
  },
  // OpenAI: "Unrecognized request argument supplied: foo", "Unknown parameter: 'foo'."
  (e) => {
    const m = /(?:Unrecognized request argument supplied: |Unknown parameter: ')([\w.]+)/.exec(
      e.message,
    );
    return m ? drop(m[1]!) : null;
  },
  // OpenAI: "Invalid value: 'turbo'. Supported values are: 'auto', 'default', 'flex'…" with
  // `param: service_tier`.
  (e) =>
    e.param && !EFFORT_PARAMS.has(e.param) && /^Invalid value\b/.test(e.message)
      ? drop(e.param)
      : null,
  // Anthropic: "`temperature` and `top_p` cannot both be specified for this model. Please use
  // only one." The first is kept.
  (e) => {
    const m = /`(\w+)` and `(\w+)` cannot both be specified/.exec(e.message);
    return m ? drop(m[2]!) : null;
  },
  // Anthropic: "`temperature` may only be set to 1 when thinking is enabled."
  (e) => {
    const m = /`(\w+)` may only be set to .+ when thinking is enabled/.exec(e.message);
    return m ? drop(m[1]!) : null;
  },
  // Anthropic and pydantic servers: "top_k: Extra inputs are not permitted"; vLLM/Mistral's
  // `detail: [{type: "extra_forbidden", loc: ["body", "top_k"]}]` reads the same.
  (e) => {
    const m = /^([\w.]+): Extra inputs are not permitted/.exec(e.message);
    return m ? drop(m[1]!) : null;
  },
  // Groq: "property 'reasoning_effort' is unsupported, did you mean 'reasoning_format'?"
  (e) => {
    const m = /^property '([\w.]+)' is unsupported/.exec(e.message);
    return m ? drop(m[1]!) : null;
  },
  // Anthropic: "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens
  // for claude-sonnet-4-5".
  (e) => {
    const m = /^([\w.]+): \d+ > (\d+), which is the maximum allowed/.exec(e.message);
    return m ? range(m[1]!, 'max', Number(m[2])) : null;
  },
  // Groq: "`max_tokens` must be less than or equal to `8192`, the maximum value for `max_tokens`
  // is less than the `context_window` for this model".
  (e) => {
    const m = /^`?([\w.]+)`? must be less than or equal to `?(\d+)`?/.exec(e.message);
    return m && MAX_TOKEN_PARAMS.has(m[1]!) ? range(m[1]!, 'max', Number(m[2])) : null;
  },
  // OpenAI: "max_tokens is too large: 100000. This model supports at most 16384 completion
  // tokens, whereas you provided 100000."
  (e) => {
    const m = /^([\w.]+) is too large: \d+\. This model supports at most (\d+)/.exec(e.message);
    return m ? range(m[1]!, 'max', Number(m[2])) : null;
  },
  // Anthropic and pydantic servers: "temperature: Input should be less than or equal to 1".
  (e) => {
    const m = /^([\w.]+): Input should be (less|greater) than or equal to (-?\d+(?:\.\d+)?)/.exec(
      e.message,
    );
    if (!m) return null;
    return range(m[1]!, m[2] === 'less' ? 'max' : 'min', Number(m[3]));
  },
  // Anthropic: "temperature: range: 0..1".
  (e) => {
    const m = /^([\w.]+): range: (-?\d+(?:\.\d+)?)\.\.(-?\d+(?:\.\d+)?)/.exec(e.message);
    return m
      ? {
          kind: 'range',
          mechanism: 'parameter',
          param: m[1]!,
          min: Number(m[2]),
          max: Number(m[3]),
        }
      : null;
  },
];

/** The fix a 400's text calls for, if one of the known wordings names it and it changes `body`. */
export function decideParameterFix(e: ErrorText, body: Record<string, unknown>): ShapeFix | null {
  for (const rule of RULES) {
    const fix = rule(e);
    if (fix && applyFix(body, fix)) return fix;
  }
  return null;
}
