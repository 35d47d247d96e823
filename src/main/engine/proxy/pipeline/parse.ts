import { bodySessionId, sessionIdOf } from '../../resilience/affinity';
import { hasControlCharacter } from '../../wire/header-value';
import { keyIs, LBRACE, QUOTE, skipWs } from '../../wire/json-members';
import { isValidJson } from '../../wire/json-validate';
import type { RequestContext, RequestStage } from './context';
import { CONTINUE, type Decision, invalid } from './decision';

/**
 * Bodies at least this large are checked by a byte scan and parsed only if something needs
 * them. V8 allocates strings over 128 KB one by one in their own pages, which made decoding and
 * parsing a 130 KB request cost about 1.5 ms here against 80 µs at 100 KB; below the mark
 * JSON.parse is three times faster than the scan. Agents send such requests every turn.
 */
const LAZY_PARSE_BYTES = 96 * 1024;
const MODEL_KEY = Buffer.from('"model"');
const STREAM_KEY = Buffer.from('"stream"');
const CACHE_KEY = Buffer.from('"prompt_cache_key"');
const METADATA_KEY = Buffer.from('"metadata"');
const BACKGROUND_KEY = Buffer.from('"background"');
const STREAM_OPTIONS_KEY = Buffer.from('"stream_options"');
/**
 * Where each format asks for reasoning: Anthropic `thinking`, Chat `reasoning_effort`,
 * Responses `reasoning`, Gemini `generationConfig.thinkingConfig` (either spelling).
 */
const REASONING_MEMBERS = [
  'thinking',
  'reasoning_effort',
  'reasoning',
  'generationConfig',
  'generation_config',
] as const;
const REASONING_KEYS = REASONING_MEMBERS.map((k) => Buffer.from(`"${k}"`));

/**
 * Request stage: the body is a JSON object with a `model`; whether the client asks to stream;
 * the session it belongs to (a session header, else one its body names: affinity.ts); whether a
 * Responses request asks to run in the background. Every member later stages read is found in
 * this one pass over the body.
 */
export const parse: RequestStage = {
  name: 'parse',
  run(ctx: RequestContext): Decision {
    const raw = ctx.raw;
    let model: unknown;
    let stream: unknown;
    let cacheKey: unknown;
    let metadata: unknown;
    let background: unknown;
    let streamOptions: unknown;
    const members = raw.length < LAZY_PARSE_BYTES ? null : scanned(raw);
    if (members === null) {
      // Small, or invalid (JSON.parse says why): parsed whole, as any request used to be.
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch (err) {
        return invalid('invalid_json', `request body is not valid JSON: ${(err as Error).message}`);
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        return invalid('invalid_body', 'request body must be a JSON object');
      }
      ctx.parsed = body as Record<string, unknown>;
      model = ctx.parsed.model;
      stream = ctx.parsed.stream;
      cacheKey = ctx.parsed.prompt_cache_key;
      metadata = ctx.parsed.metadata;
      background = ctx.parsed.background;
      streamOptions = ctx.parsed.stream_options;
      ctx.mayReason = hasReasoningMember(ctx.parsed);
    } else {
      if (raw[skipWs(raw, 0)] !== LBRACE) {
        return invalid('invalid_body', 'request body must be a JSON object');
      }
      ctx.mayReason = members.mayReason;
      model = valueAt(raw, members.model);
      const at = members.model;
      if (members.models === 1 && at && raw[at[0]] === QUOTE) {
        ctx.modelSpan = { of: raw, start: at[0], end: at[1] };
      }
      stream = valueAt(raw, members.stream);
      cacheKey = valueAt(raw, members.cacheKey);
      metadata = valueAt(raw, members.metadata);
      background = valueAt(raw, members.background);
      streamOptions = valueAt(raw, members.streamOptions);
    }
    ctx.background = ctx.endpoint.format === 'openai-responses' && background === true;
    ctx.session = sessionIdOf(ctx.req.headers) ?? bodySessionId(cacheKey, metadata);
    if (cacheKey !== undefined && cacheKey !== null) ctx.clientCacheKey = true;
    // A Gemini call names both in its path (`/v1beta/models/{model}:streamGenerateContent`).
    if (ctx.endpoint.gemini) ({ model, stream } = ctx.endpoint.gemini);
    if (typeof model !== 'string' || model.trim() === '') {
      return invalid(
        'missing_model',
        '`model` is required and must be a non-empty string',
        'model',
      );
    }
    if (hasControlCharacter(model)) {
      return invalid('invalid_model', '`model` must not contain control characters', 'model');
    }
    ctx.model = model;
    ctx.stream = !ctx.endpoint.countTokens && stream === true;
    if (streamOptions !== undefined) ctx.streamOptions = streamOptions;
    return CONTINUE;
  },
};

function hasReasoningMember(body: Record<string, unknown>): boolean {
  for (const k of REASONING_MEMBERS) if (body[k] !== undefined) return true;
  return false;
}

type Span = [number, number] | null;

interface Members {
  model: Span;
  /** How often a top-level key read `model` (JSON.parse keeps the last). */
  models: number;
  mayReason: boolean;
  stream: Span;
  cacheKey: Span;
  metadata: Span;
  background: Span;
  streamOptions: Span;
}

/**
 * The members later stages read, found by the same scan that validates the body (the last of a
 * repeated key counts, as in JSON.parse): one pass over the bytes. Null when it is not JSON.
 */
function scanned(raw: Buffer): Members | null {
  const m: Members = {
    model: null,
    models: 0,
    mayReason: false,
    stream: null,
    cacheKey: null,
    metadata: null,
    background: null,
    streamOptions: null,
  };
  const valid = isValidJson(raw, (keyStart, keyEnd, valueStart, valueEnd) => {
    const at: Span = [valueStart, valueEnd];
    if (keyIs(raw, keyStart, keyEnd, MODEL_KEY)) {
      m.model = at;
      m.models++;
    } else if (keyIs(raw, keyStart, keyEnd, STREAM_KEY)) m.stream = at;
    else if (keyIs(raw, keyStart, keyEnd, CACHE_KEY)) m.cacheKey = at;
    else if (keyIs(raw, keyStart, keyEnd, METADATA_KEY)) m.metadata = at;
    else if (keyIs(raw, keyStart, keyEnd, BACKGROUND_KEY)) m.background = at;
    else if (keyIs(raw, keyStart, keyEnd, STREAM_OPTIONS_KEY)) m.streamOptions = at;
    else if (!m.mayReason && REASONING_KEYS.some((k) => keyIs(raw, keyStart, keyEnd, k))) {
      m.mayReason = true;
    }
  });
  return valid ? m : null;
}

/** A member's value (a few bytes: a model name, `true`, `stream_options`), parsed alone. */
function valueAt(raw: Buffer, at: Span): unknown {
  return at ? JSON.parse(raw.toString('utf8', at[0], at[1])) : undefined;
}
