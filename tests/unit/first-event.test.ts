import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { peekFirstEventError } from '../../src/main/engine/upstream/first-event';
import { UpstreamBody } from '../../src/main/engine/upstream/upstream-body';

/** A body whose chunks arrive one per turn of the event loop, as from a socket. */
function arriving(chunks: Buffer[]): UpstreamBody {
  const body = new UpstreamBody();
  let i = 0;
  const step = () => {
    if (i < chunks.length) {
      body.push(chunks[i++]!);
      setImmediate(step);
    } else body.end();
  };
  setImmediate(step);
  return body;
}

/** Reads the rest the way the relay does (a reader), and decodes it whole. */
function drain(body: UpstreamBody): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.read({
      data: (chunk) => chunks.push(chunk) > 0,
      // Joined before decoding: a cut may fall inside a character.
      end: () => resolve(Buffer.concat(chunks).toString('utf8')),
      error: reject,
    });
  });
}

function split(text: string, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let last = 0;
  for (const p of [...points, text.length]) {
    if (p > last) parts.push(Buffer.from(text.slice(last, p)));
    last = p;
  }
  return parts;
}

const CHAT =
  ': keep-alive\n\ndata: {"choices":[{"delta":{"content":"Hi"}}]}\n\ndata: {"choices":[{"delta":{"content":" there"}}]}\n\ndata: [DONE]\n\n';

describe('7. an error arriving as the first event of a 200 stream (Breakwater)', () => {
  it('is found for each format, with the status its error type stands for', async () => {
    const cases: Array<[string, number]> = [
      [
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
        529,
      ],
      ['data: {"error":{"message":"slow down","type":"rate_limit_exceeded"}}\n\n', 429],
      ['event: error\ndata: {"type":"error","code":"server_error","message":"boom"}\n\n', 500],
      [
        'event: response.failed\ndata: {"type":"response.failed","response":{"error":{"code":"server_error","message":"x"}}}\n\n',
        500,
      ],
    ];
    for (const [text, status] of cases) {
      const found = await peekFirstEventError(arriving([Buffer.from(text)]));
      expect(found?.status).toBe(status);
      expect(JSON.parse(found!.raw.toString())).toBeTruthy();
    }
  });

  it('hands a healthy stream on byte for byte, however it is chunked', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 12 }), async (cuts) => {
        const body = arriving(split(CHAT, cuts));
        expect(await peekFirstEventError(body)).toBeNull();
        expect(await drain(body)).toBe(CHAT);
      }),
      { numRuns: 100 },
    );
  });

  it('finds an error whose key is spelled with an escape (the bytes never say "error")', async () => {
    const text = 'data: {"\\u0065rror":{"type":"rate_limit_exceeded","message":"busy"}}\n\n';
    expect(text).not.toContain('error');
    const found = await peekFirstEventError(arriving([Buffer.from(text)]));
    expect(found?.status).toBe(429);
  });

  it('hands on a stream that ends before any complete event', async () => {
    const body = arriving([Buffer.from('data: [DONE]')]);
    expect(await peekFirstEventError(body)).toBeNull();
    expect(await drain(body)).toBe('data: [DONE]');
  });
});

/** Cuts bytes at the given positions (any position, mid-character included). */
function splitBytes(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const bounds = [0, ...points, bytes.length];
  return bounds.slice(1).map((end, i) => bytes.subarray(bounds[i]!, end));
}

const ERROR_STATUS: Record<string, number> = {
  overloaded_error: 529,
  rate_limit_exceeded: 429,
  server_error: 500,
  invalid_request_error: 400,
  something_new: 502,
};

/** A first event as its lines, with the status its error stands for (null: not an error). */
const firstEventArb = fc.oneof(
  fc
    .record({
      type: fc.constantFrom(...Object.keys(ERROR_STATUS)),
      message: fc.string({ unit: 'grapheme' }),
      shape: fc.constantFrom('anthropic', 'chat', 'responses', 'failed'),
    })
    .map(({ type, message, shape }) => {
      const data =
        shape === 'anthropic'
          ? { type: 'error', error: { type, message } }
          : shape === 'chat'
            ? { error: { message, type } }
            : shape === 'responses'
              ? { type: 'error', code: type, message }
              : { type: 'response.failed', response: { error: { code: type, message } } };
      const event =
        shape === 'chat' ? [] : [`event: ${shape === 'failed' ? 'response.failed' : 'error'}`];
      return {
        lines: [...event, `data: ${JSON.stringify(data)}`],
        status: ERROR_STATUS[type]!,
        data,
      };
    }),
  fc.string({ unit: 'grapheme' }).map((content) => ({
    lines: [`data: ${JSON.stringify({ choices: [{ delta: { content } }] })}`],
    status: null,
    data: null,
  })),
  fc.constantFrom(
    {
      lines: ['event: message_start', 'data: {"type":"message_start","message":{}}'],
      status: null,
      data: null,
    },
    { lines: ['event: ping'], status: null, data: null },
    { lines: ['data: [DONE]'], status: null, data: null },
  ),
);

const openingArb = fc
  .record({
    comments: fc.array(fc.array(fc.constantFrom(': keep-alive', ':', ': PROCESSING')), {
      maxLength: 3,
    }),
    first: firstEventArb,
    eol: fc.constantFrom('\n', '\r\n'),
    blank: fc.constantFrom('\n\n', '\r\n\r\n', '\n\r\n', '\r\n\n'),
    cuts: fc.array(fc.nat(), { maxLength: 12 }),
  })
  .map(({ comments, first, eol, blank, cuts }) => {
    const blocks = [
      ...comments,
      first.lines,
      ['data: {"choices":[{"delta":{"content":"later"}}]}'],
    ];
    const text = blocks.map((lines) => lines.join(eol) + blank).join('');
    return { text, chunks: splitBytes(Buffer.from(text, 'utf8'), cuts), first };
  });

describe('peekFirstEventError, for any chunking', () => {
  it('finds the first event past comment blocks, whatever the line endings and cuts', async () => {
    await fc.assert(
      fc.asyncProperty(openingArb, async ({ text, chunks, first }) => {
        const body = arriving(chunks);
        const found = await peekFirstEventError(body);
        if (first.status === null) {
          expect(found).toBeNull();
          expect(await drain(body)).toBe(text);
        } else {
          expect(found?.status).toBe(first.status);
          expect(JSON.parse(found!.raw.toString('utf8'))).toEqual(first.data);
        }
      }),
      { numRuns: 500 },
    );
  });
});
