// What bench/cpu.mjs sends, and the gateway config it sends it to (scripts that measure the same
// requests import them from here): the config issue 26 names (a two-target combo over two
// connections, a gateway key, the request log on, every other feature at its default).
// bench/run.mjs sends the same requests and uses its OpenAI provider.

export const KEY = 'bw-bench-cpu-0123456789abcdef';

export const words =
  'The function reads the configuration once, validates every field and returns a frozen object; callers never see a partial config. ';

/** A short chat turn (~3 KB): a system prompt, a short history, a question. */
export function shortBody(model) {
  return JSON.stringify({
    model,
    messages: [
      { role: 'system', content: `You are a careful coding assistant. ${words.repeat(10)}` },
      { role: 'user', content: 'Why does the config loader freeze its result? Show me where.' },
      { role: 'assistant', content: words.repeat(3) },
      { role: 'user', content: 'Now add a "timeout" field with a default of 30 seconds.' },
    ],
    temperature: 0.2,
    max_tokens: 1024,
  });
}

/** An agent turn (~130 KB): a long system prompt, tools, and a history of tool calls and results. */
export function agentBody(model) {
  const tools = Array.from({ length: 16 }, (_, i) => ({
    type: 'function',
    function: {
      name: `tool_${i}`,
      description: words.repeat(3),
      parameters: {
        type: 'object',
        properties: { path: { type: 'string', description: 'file path' } },
        required: ['path'],
      },
    },
  }));
  const messages = [{ role: 'system', content: words.repeat(60) }];
  for (let i = 0; messages.length < 60; i++) {
    messages.push({ role: 'user', content: `Step ${i}: ${words.repeat(2)}` });
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `call_${i}`,
          type: 'function',
          function: { name: `tool_${i % 16}`, arguments: JSON.stringify({ path: `src/f${i}.ts` }) },
        },
      ],
    });
    messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: words.repeat(38) });
  }
  return JSON.stringify({ model, messages, tools, max_tokens: 4096 });
}

/** The short turn, asking for a stream (the upstream answers in 100 chunks). */
export function streamBody(model) {
  return JSON.stringify({ ...JSON.parse(shortBody(model)), stream: true });
}

/** 100 words, one per streamed chunk. */
export const STREAM_TEXT = Array.from({ length: 100 }, (_, i) => `w${i % 10} `).join('');

/** The bench's OpenAI provider on the fake upstream: two connections, two models. */
export function openaiProvider(upstreamUrl) {
  return {
    id: 'openai',
    format: 'openai',
    baseUrl: `${upstreamUrl}/v1`,
    authClass: 'api_key',
    connections: [
      { id: 'openai-1', apiKey: 'sk-bench-openai-1-0123456789' },
      { id: 'openai-2', apiKey: 'sk-bench-openai-2-0123456789' },
    ],
    models: ['gpt-4o-mini', 'gpt-4.1'],
  };
}

export function config(upstreamUrl) {
  return {
    gateway: { apiKeys: [{ name: 'bench', key: KEY }] },
    providers: [openaiProvider(upstreamUrl)],
    combos: [
      { name: 'coder', strategy: 'priority', targets: ['openai/gpt-4o-mini', 'openai/gpt-4.1'] },
    ],
  };
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : Number.NaN;
};
