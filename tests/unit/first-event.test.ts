import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { peekOpeningError } from '../../src/main/engine/proxy/first-event';

async function drain(body: Readable): Promise<string> {
  let out = '';
  for await (const chunk of body) out += (chunk as Buffer).toString('utf8');
  return out;
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
      const found = await peekOpeningError(Readable.from([Buffer.from(text)]));
      expect(found?.status).toBe(status);
      expect(JSON.parse(found!.raw.toString())).toBeTruthy();
    }
  });

  it('hands a healthy stream on byte for byte, however it is chunked', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 12 }), async (cuts) => {
        const body = Readable.from(split(CHAT, cuts));
        expect(await peekOpeningError(body)).toBeNull();
        expect(await drain(body)).toBe(CHAT);
      }),
      { numRuns: 100 },
    );
  });

  it('hands on a stream that ends before any complete event', async () => {
    const body = Readable.from([Buffer.from('data: [DONE]')]);
    expect(await peekOpeningError(body)).toBeNull();
    expect(await drain(body)).toBe('data: [DONE]');
  });
});
