// Issue 27, item 4: a Chat stream that passes through is costed from what the provider reports,
// not from the bytes of its event framing. The gateway asks for usage (`include_usage`), hands
// the extra chunk only to a client that asked for it, and estimates from the content when the
// provider reports nothing.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BreakwaterConfig, UsageReport } from '../../src/shared/contract';
import type { FakeUpstream } from '../support/fake-upstream';
import { eventually, OPENAI_KEY, startGateway, type TestGateway } from '../support/gateway';

const PRICE = { input: 2, output: 8 };

function config(primary: FakeUpstream): BreakwaterConfig {
  return {
    providers: [
      {
        id: 'oa',
        format: 'openai',
        baseUrl: `${primary.url}/v1`,
        authClass: 'api_key',
        connections: [{ id: 'oa-1', apiKey: OPENAI_KEY }],
        models: [{ id: 'gpt-test', price: PRICE }],
      },
    ],
  };
}

let gw: TestGateway;
let openai: OpenAI;
beforeAll(async () => {
  gw = await startGateway({ config: (primary) => config(primary) });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'unused', maxRetries: 0 });
});
afterAll(() => gw.close());
beforeEach(() => gw.primary.reset());

const messages = [{ role: 'user' as const, content: 'Say hello' }];

async function totals(): Promise<{
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}> {
  const res = await gw.admin('/api/usage?since=1h&by=model');
  const report = (await res.json()) as UsageReport;
  return (
    report.rows.find((r) => r.group === 'gpt-test') ?? {
      requests: 0,
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
    }
  );
}

/** The usage one streamed request added, once its row is in. */
async function added(send: () => Promise<void>) {
  const before = await totals();
  await send();
  await eventually(async () => (await totals()).requests === before.requests + 1);
  const after = await totals();
  return {
    input: after.inputTokens - before.inputTokens,
    output: after.outputTokens - before.outputTokens,
    cost: after.costUsd - before.costUsd,
  };
}

async function stream(includeUsage: boolean) {
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  const s = await openai.chat.completions.create({
    model: 'oa/gpt-test',
    messages,
    stream: true,
    ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
  });
  for await (const c of s) chunks.push(c);
  return chunks;
}

const textOf = (chunks: OpenAI.ChatCompletionChunk[]) =>
  chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');

describe('passthrough Chat streams are costed from usage, not framing', () => {
  it('a client that did not ask gets no usage chunk, and the reported tokens are counted', async () => {
    gw.primary.script({ text: 'Hi there, friend!', usage: { input: 9, output: 4 } });
    let chunks: OpenAI.ChatCompletionChunk[] = [];
    const got = await added(async () => {
      chunks = await stream(false);
    });
    expect(got).toMatchObject({ input: 9, output: 4 });
    expect(got.cost).toBeCloseTo((9 * PRICE.input + 4 * PRICE.output) / 1e6, 12);
    expect(gw.primary.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });
    expect(textOf(chunks)).toBe('Hi there, friend!');
    expect(chunks.every((c) => c.choices.length > 0 && !c.usage)).toBe(true);
  });

  it('a client that asked gets its usage chunk, once', async () => {
    gw.primary.script({ text: 'Hi there, friend!', usage: { input: 9, output: 4 } });
    const chunks = await stream(true);
    const withUsage = chunks.filter((c) => c.usage);
    expect(withUsage).toHaveLength(1);
    expect(withUsage[0]!.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 4 });
    expect(textOf(chunks)).toBe('Hi there, friend!');
  });

  it('other stream options of the client are kept', async () => {
    gw.primary.script({ usage: { input: 9, output: 4 } });
    const s = await openai.chat.completions.create({
      model: 'oa/gpt-test',
      messages,
      stream: true,
      // biome-ignore lint/suspicious/noExplicitAny: a field the SDK types do not know yet
      stream_options: { include_obfuscation: false } as any,
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const c of s) chunks.push(c);
    expect(gw.primary.requests.at(-1)!.body.stream_options).toEqual({
      include_obfuscation: false,
      include_usage: true,
    });
    expect(chunks.some((c) => c.usage)).toBe(false);
  });

  it.each([
    ['with continuation off (measured as it goes)', false],
    ['while a cut may be continued (the stream is kept, measured at its end)', null],
  ])(
    'a provider that reports nothing is estimated from the content, not the event framing, %s',
    async (_, continuation) => {
      await gw.admin('/api/settings', {
        method: 'PATCH',
        body: JSON.stringify({ 'streamContinuation.enabled': continuation }),
      });
      const text = 'Hi there, friend!';
      const event = (delta: object, finish: string | null = null) =>
        `data: ${JSON.stringify({
          id: 'chatcmpl-x',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'gpt-test',
          system_fingerprint: null,
          choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        })}\n\n`;
      const body =
        event({ role: 'assistant', content: '' }) +
        ['Hi ', 'there, ', 'friend!'].map((t) => event({ content: t })).join('') +
        event({}, 'stop') +
        'data: [DONE]\n\n';
      gw.primary.script({ body });
      let chunks: OpenAI.ChatCompletionChunk[] = [];
      const got = await added(async () => {
        chunks = await stream(false);
      });
      expect(textOf(chunks)).toBe(text);
      // 17 characters of content: 5 tokens at four a token, where the 900-odd bytes of events
      // counted 230.
      expect(got.output).toBe(Math.ceil(text.length / 4));
    },
  );
});
