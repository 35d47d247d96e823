// Clients of the four formats reading one streamed answer through the gateway (issue 28 tests).
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { expect } from 'vitest';
import type { ProviderConfig } from '../../src/shared/contract';
import type { FakeUpstream } from './fake-upstream';
import { ANTHROPIC_KEY, fakeProvider, OPENAI_KEY } from './gateway';

export const FULL =
  'Breakwater keeps long answers alive: when an upstream stream breaks halfway through, the gateway asks again with the partial answer and relays only what comes after the cut, so the client reads one uninterrupted message from the first word to the last.';

export type Client = 'chat' | 'anthropic' | 'responses' | 'gemini';

/** The providers the readers' models name (`oa/gpt-test`, `an/claude-test`), on `upstream`. */
export function readerProviders(upstream: FakeUpstream): ProviderConfig[] {
  return [
    fakeProvider('oa', 'openai', upstream, ['gpt-test'], OPENAI_KEY),
    fakeProvider('an', 'anthropic', upstream, ['claude-test'], ANTHROPIC_KEY),
  ];
}

/** The whole answer text as the client's own SDK (or, for Gemini, its SSE) reads it. */
export async function readAnswer(
  url: string,
  client: Client,
  model: string,
): Promise<{ text: string; stops: string[] }> {
  const question = 'Why do long answers matter?';
  if (client === 'chat') {
    const oa = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'any', maxRetries: 0 });
    const stream = oa.chat.completions.stream({
      model,
      stream: true,
      messages: [{ role: 'user', content: question }],
    });
    const stops: string[] = [];
    for await (const chunk of stream) {
      const f = chunk.choices[0]?.finish_reason;
      if (f) stops.push(f);
    }
    const done = await stream.finalChatCompletion();
    return { text: done.choices[0]?.message.content ?? '', stops };
  }
  if (client === 'anthropic') {
    const an = new Anthropic({ baseURL: url, apiKey: 'any', maxRetries: 0 });
    const stream = an.messages.stream({
      model,
      max_tokens: 1024,
      messages: [{ role: 'user', content: question }],
    });
    const stops: string[] = [];
    for await (const ev of stream) {
      if (ev.type === 'message_delta' && ev.delta.stop_reason) stops.push(ev.delta.stop_reason);
    }
    const done = await stream.finalMessage();
    const text = done.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    return { text, stops };
  }
  if (client === 'responses') {
    const oa = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'any', maxRetries: 0 });
    const stream = oa.responses.stream({ model, input: question });
    const stops: string[] = [];
    const seqs: number[] = [];
    for await (const ev of stream) {
      seqs.push(ev.sequence_number);
      if (ev.type === 'response.completed') stops.push(ev.response.status ?? '');
    }
    // Numbering goes on across the seam: strictly increasing, no number twice.
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]!).toBeGreaterThan(seqs[i - 1]!);
    const done = await stream.finalResponse();
    return { text: done.output_text, stops };
  }
  const res = await fetch(`${url}/v1beta/models/${model}:streamGenerateContent?alt=sse`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: question }] }] }),
  });
  const body = await res.text();
  let text = '';
  const stops: string[] = [];
  for (const line of body.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const ev = JSON.parse(line.slice(6));
    if (ev.error) throw new Error(`stream error: ${JSON.stringify(ev.error)}`);
    const cand = ev.candidates?.[0];
    for (const p of cand?.content?.parts ?? []) if (typeof p.text === 'string') text += p.text;
    if (cand?.finishReason) stops.push(cand.finishReason);
  }
  return { text, stops };
}
