import { describe, expect, it } from 'vitest';
import {
  clientErrorFromUpstream,
  upstreamErrorMessage,
} from '../../src/main/engine/upstream/upstream-errors';
import {
  errorBody,
  type GatewayError,
  kindForStatus,
  nextSequenceNumber,
  streamErrorEvent,
} from '../../src/main/engine/wire/client-errors';
import type { ClientFormat } from '../../src/shared/contract';
import { validateStreamEvent } from '../support/open-responses-schema';

const NOT_FOUND: GatewayError = {
  status: 404,
  kind: 'not_found',
  code: 'model_not_found',
  message: 'model "gpt-9" not found',
};

/** Parses one SSE event block into its `event:` name (or null) and its JSON data. */
function parseEvent(block: string): { event: string | null; data: unknown } {
  expect(block.endsWith('\n\n')).toBe(true);
  const lines = block.slice(0, -2).split('\n');
  const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? null;
  const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
  expect(data).toHaveLength(1);
  expect(lines).toHaveLength(event === null ? 1 : 2);
  return { event, data: JSON.parse(data[0]!) };
}

describe('error bodies are in the caller’s own API format', () => {
  it('OpenAI (Chat and Responses): {error: {message, type, param, code}}', () => {
    const expected = {
      error: {
        message: 'model "gpt-9" not found',
        type: 'invalid_request_error',
        param: null,
        code: 'model_not_found',
      },
    };
    expect(errorBody('openai-chat', NOT_FOUND)).toEqual(expected);
    expect(errorBody('openai-responses', NOT_FOUND)).toEqual(expected);
  });

  it('Anthropic: {type: "error", error: {type, message, code}}', () => {
    expect(errorBody('anthropic', NOT_FOUND)).toEqual({
      type: 'error',
      error: {
        type: 'not_found_error',
        message: 'model "gpt-9" not found',
        code: 'model_not_found',
      },
    });
  });

  it('param and extra fields are carried in the error object', () => {
    const err: GatewayError = {
      status: 503,
      kind: 'overloaded',
      code: 'all_targets_cooling_down',
      message: 'every target is cooling down',
      param: 'model',
      extra: { diagnostics: [{ target: 'openai/gpt-5', reason: 'open' }] },
    };
    expect(errorBody('openai-chat', err)).toEqual({
      error: {
        message: 'every target is cooling down',
        type: 'api_error',
        param: 'model',
        code: 'all_targets_cooling_down',
        diagnostics: [{ target: 'openai/gpt-5', reason: 'open' }],
      },
    });
    expect(errorBody('anthropic', err)).toEqual({
      type: 'error',
      error: {
        type: 'overloaded_error',
        message: 'every target is cooling down',
        code: 'all_targets_cooling_down',
        diagnostics: [{ target: 'openai/gpt-5', reason: 'open' }],
      },
    });
  });

  it('each error kind maps to the API’s own type vocabulary', () => {
    const types = (kind: GatewayError['kind']) => {
      const err = { ...NOT_FOUND, kind };
      const openai = errorBody('openai-chat', err) as { error: { type: string } };
      const anthropic = errorBody('anthropic', err) as { error: { type: string } };
      return [openai.error.type, anthropic.error.type];
    };
    expect(types('invalid_request')).toEqual(['invalid_request_error', 'invalid_request_error']);
    expect(types('authentication')).toEqual(['authentication_error', 'authentication_error']);
    expect(types('permission')).toEqual(['permission_error', 'permission_error']);
    expect(types('too_large')).toEqual(['invalid_request_error', 'request_too_large']);
    expect(types('rate_limit')).toEqual(['rate_limit_error', 'rate_limit_error']);
    expect(types('upstream')).toEqual(['api_error', 'api_error']);
    expect(types('overloaded')).toEqual(['api_error', 'overloaded_error']);
    expect(types('timeout')).toEqual(['timeout_error', 'timeout_error']);
    expect(types('internal')).toEqual(['server_error', 'api_error']);
  });
});

describe('kindForStatus: an HTTP status as an error kind', () => {
  it('maps the statuses clients act on', () => {
    const table: [number, GatewayError['kind']][] = [
      [400, 'invalid_request'],
      [422, 'invalid_request'],
      [401, 'authentication'],
      [403, 'permission'],
      [404, 'not_found'],
      [413, 'too_large'],
      [429, 'rate_limit'],
      [408, 'timeout'],
      [504, 'timeout'],
      [503, 'overloaded'],
      [529, 'overloaded'],
      [500, 'upstream'],
      [502, 'upstream'],
      [402, 'invalid_request'],
      [409, 'invalid_request'],
    ];
    for (const [status, kind] of table) expect(kindForStatus(status)).toBe(kind);
  });
});

describe('a failure after the stream was committed ends it with an error event in the client’s format', () => {
  const err: GatewayError = {
    status: 502,
    kind: 'upstream',
    code: 'stream_stalled',
    message: 'upstream stalled',
  };

  it('Chat Completions: a data: line only, carrying the OpenAI error body', () => {
    const block = streamErrorEvent('openai-chat', err);
    expect(block.startsWith('data: ')).toBe(true);
    expect(block).not.toContain('event:');
    expect(parseEvent(block)).toEqual({ event: null, data: errorBody('openai-chat', err) });
  });

  it('Anthropic: event: error, carrying the Anthropic error body', () => {
    const block = streamErrorEvent('anthropic', err);
    expect(block.startsWith('event: error\ndata: ')).toBe(true);
    expect(parseEvent(block)).toEqual({ event: 'error', data: errorBody('anthropic', err) });
  });

  it('Responses: event: error, with the error fields at the top level of the data', () => {
    const block = streamErrorEvent('openai-responses', err);
    expect(block.startsWith('event: error\ndata: ')).toBe(true);
    const { event, data } = parseEvent(block);
    expect(event).toBe('error');
    expect(data).toMatchObject({
      message: 'upstream stalled',
      code: 'stream_stalled',
      param: null,
    });
  });

  it('Responses: the event conforms to the Open Responses `error` event, with its sequence number', () => {
    const { data } = parseEvent(streamErrorEvent('openai-responses', err, 7));
    expect(validateStreamEvent(data)).toEqual([]);
    expect(data).toMatchObject({
      sequence_number: 7,
      error: {
        type: 'api_error',
        code: 'stream_stalled',
        message: 'upstream stalled',
        param: null,
      },
    });
    // Without the number or the nested object, the schema refuses it (the check can fail).
    const { sequence_number: _, ...unnumbered } = data as Record<string, unknown>;
    expect(validateStreamEvent(unnumbered)).not.toEqual([]);
  });

  it('the next sequence number continues the last one relayed, across a chunk boundary', () => {
    const a = Buffer.from(
      'event: x\ndata: {"type":"x","sequence_number":3}\n\nevent: y\ndata: {"type":"y","seq',
    );
    const b = Buffer.from('uence_number": 4,"delta":"hi"}\n\n');
    expect(nextSequenceNumber([a, b])).toBe(5);
    expect(nextSequenceNumber([a])).toBe(4);
    expect(nextSequenceNumber([Buffer.from(': keep-alive\n\n')])).toBe(0);
    expect(nextSequenceNumber([])).toBe(0);
  });
});

describe('upstream error responses are rewritten for the client', () => {
  const SECRET = 'prov-secret-QWERTYUIOP123456';

  function rewrite(
    format: ClientFormat,
    status: number,
    raw: string,
    secrets: string[] = [SECRET],
  ) {
    return clientErrorFromUpstream(format, status, Buffer.from(raw), 'openai', secrets);
  }

  it('passes an OpenAI-shaped body through to OpenAI clients unchanged', () => {
    const raw = JSON.stringify({
      error: {
        message: 'Rate limit reached for gpt-5',
        type: 'rate_limit_error',
        param: null,
        code: 'rate_limit_exceeded',
      },
    });
    for (const format of ['openai-chat', 'openai-responses'] as const) {
      expect(rewrite(format, 429, raw)).toEqual({
        body: raw,
        message: 'Rate limit reached for gpt-5',
      });
    }
  });

  it('passes an Anthropic-shaped body through to Anthropic clients unchanged', () => {
    const raw = JSON.stringify({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
    expect(rewrite('anthropic', 529, raw)).toEqual({ body: raw, message: 'Overloaded' });
  });

  it('wraps an HTML page from a proxy in the client’s format', () => {
    const html = '<html><body><h1>502 Bad Gateway</h1></body></html>';
    const out = rewrite('openai-chat', 502, html);
    expect(out.message).toBe(html);
    expect(JSON.parse(out.body)).toEqual({
      error: {
        message: `provider openai answered HTTP 502: ${html}`,
        type: 'api_error',
        param: null,
        code: 'upstream_error',
      },
    });
  });

  it('wraps plain text, cut to 300 characters', () => {
    const text = `  ${'upstream connect error '.repeat(30)}  `;
    const out = rewrite('anthropic', 503, text);
    expect(out.message).toBe(text.trim().slice(0, 300));
    expect(JSON.parse(out.body)).toEqual({
      type: 'error',
      error: {
        type: 'overloaded_error',
        message: `provider openai answered HTTP 503: ${text.trim().slice(0, 300)}`,
        code: 'upstream_error',
      },
    });
  });

  it('wraps an empty body with the status', () => {
    const out = rewrite('openai-chat', 500, '');
    expect(out.message).toBe('HTTP 500 with an empty body');
    expect(JSON.parse(out.body).error.message).toBe(
      'provider openai answered HTTP 500: HTTP 500 with an empty body',
    );
  });

  it('wraps another API’s shape, keeping its message', () => {
    const openaiShaped = JSON.stringify({
      error: { message: 'bad model', type: 'invalid_request_error' },
    });
    const out = rewrite('anthropic', 400, openaiShaped);
    expect(out.message).toBe('bad model');
    expect(JSON.parse(out.body)).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'provider openai answered HTTP 400: bad model',
        code: 'upstream_error',
      },
    });
  });

  it('wraps JSON that is not an error object: {"error": "text"}, {"message": ...}, {"detail": ...}', () => {
    expect(
      JSON.parse(rewrite('openai-chat', 401, '{"error":"invalid key"}').body).error,
    ).toMatchObject({
      message: 'provider openai answered HTTP 401: invalid key',
      type: 'authentication_error',
      code: 'upstream_error',
    });
    expect(rewrite('openai-chat', 500, '{"message":"internal"}').message).toBe('internal');
    expect(rewrite('openai-chat', 500, '{"detail":"Not Found"}').message).toBe(
      '{"detail":"Not Found"}',
    );
  });

  it('scrubs a known secret the upstream echoed, in a passed-through body', () => {
    const raw = JSON.stringify({
      error: {
        message: `Incorrect API key provided: ${SECRET}`,
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      },
    });
    const out = rewrite('openai-chat', 401, raw);
    expect(out.body).not.toContain(SECRET);
    expect(out.message).not.toContain(SECRET);
    expect(out.message).toBe('Incorrect API key provided: [redacted]');
    expect(JSON.parse(out.body).error.code).toBe('invalid_api_key');
  });

  it('scrubs a known secret the upstream echoed, in a wrapped body', () => {
    const out = rewrite('anthropic', 403, `<p>key ${SECRET} is not allowed</p>`);
    expect(out.body).not.toContain(SECRET);
    expect(out.message).toBe('<p>key [redacted] is not allowed</p>');
  });

  it('scrubs credential-shaped text even when the secret is not known', () => {
    const out = rewrite(
      'openai-chat',
      401,
      '{"error":{"message":"bad key sk-proj-abcdefghijklmnop"}}',
      [],
    );
    expect(out.body).not.toContain('sk-proj-abcdefghijklmnop');
    expect(out.message).toBe('bad key [redacted]');
  });
});

describe('upstreamErrorMessage: the human message of any format’s error body', () => {
  it('error.message, error as a string, or a top-level message', () => {
    expect(upstreamErrorMessage({ error: { message: 'a' } })).toBe('a');
    expect(upstreamErrorMessage({ type: 'error', error: { type: 'x', message: 'b' } })).toBe('b');
    expect(upstreamErrorMessage({ error: 'c' })).toBe('c');
    expect(upstreamErrorMessage({ message: 'd' })).toBe('d');
  });

  it('null when there is none', () => {
    for (const v of [undefined, null, 'text', 42, {}, { error: { code: 1 } }, { detail: 'x' }]) {
      expect(upstreamErrorMessage(v)).toBeNull();
    }
  });
});

describe('regressions', () => {
  it('a Responses stream error event keeps type "error"', () => {
    const event = streamErrorEvent('openai-responses', {
      status: 500,
      kind: 'upstream',
      code: 'x',
      message: 'boom',
    });
    const data = JSON.parse(event.split('data: ')[1]!) as { type: string; message: string };
    expect(data.type).toBe('error');
    expect(data.message).toBe('boom');
  });

  it('a secret crossing the 300-character excerpt boundary is still scrubbed', () => {
    const secret = 'sk-zz-secret-value-0123456789';
    const out = clientErrorFromUpstream(
      'openai-chat',
      502,
      Buffer.from(`${'x'.repeat(290)}${secret}`),
      'p',
      [secret],
    );
    expect(out.message).not.toContain(secret.slice(0, 10));
    expect(out.body).not.toContain(secret.slice(0, 10));
  });
});
