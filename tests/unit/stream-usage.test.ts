import { describe, expect, it } from 'vitest';
import { ContentMeter, UsageEventStrip } from '../../src/main/engine/proxy/pipeline/stream-usage';

const event = (o: object) => `data: ${JSON.stringify(o)}\n\n`;
const delta = (content: string) =>
  event({
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta: { content } }],
    usage: null,
  });
const usage = event({
  object: 'chat.completion.chunk',
  choices: [],
  usage: { prompt_tokens: 9, completion_tokens: 4 },
});
const stream = `${delta('Hi')}${delta(' "usage":{ there')}${usage}data: [DONE]\n\n`;

/** Everything the strip lets through when the stream arrives cut at `cuts`. */
function through(cuts: number[]): string {
  const strip = new UsageEventStrip();
  const bytes = Buffer.from(stream);
  let out = '';
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    out += strip.push(bytes.subarray(from, at)).toString();
    from = at;
  }
  return out + (strip.rest()?.toString() ?? '');
}

describe('the usage event strip (issue 27)', () => {
  it('takes out the usage-only event and its blank line, wherever the chunks are cut', () => {
    const expected = `${delta('Hi')}${delta(' "usage":{ there')}data: [DONE]\n\n`;
    expect(through([])).toBe(expected);
    for (let cut = 1; cut < stream.length; cut += 7) expect(through([cut])).toBe(expected);
    expect(through([stream.indexOf('usage":{"prompt'), stream.indexOf('[DONE]')])).toBe(expected);
  });

  it('keeps an unfinished last line for the end of the stream', () => {
    const strip = new UsageEventStrip();
    expect(strip.push(Buffer.from('data: {"a"')).length).toBe(0);
    expect(strip.rest()?.toString()).toBe('data: {"a"');
  });
});

describe('the content meter', () => {
  it('counts the bytes of content, reasoning and tool-call argument strings only', () => {
    const m = new ContentMeter();
    m.push(Buffer.from(delta('Hi "you"')));
    m.push(Buffer.from(event({ choices: [{ delta: { reasoning_content: 'hmm' } }] })));
    m.push(
      Buffer.from(
        event({ choices: [{ delta: { tool_calls: [{ function: { arguments: '{"x":1}' } }] } }] }),
      ),
    );
    // `Hi \"you\"` is 10 bytes escaped, `hmm` 3, `{\"x\":1}` 9.
    expect(m.bytes).toBe(10 + 3 + 9);
  });
});
