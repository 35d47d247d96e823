import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENTS } from '../../src/main/engine/agents';
import { FAKE_RESULTS, type FakeSearch, startFakeSearch } from '../support/fake-search';
import { startGateway, type TestGateway } from '../support/gateway';
import { connectAgent, installed, quietEnv, runAgent, sandbox } from './harness';

// Claude Code's WebSearch sends Anthropic's server tool in a request of its own; on a Chat
// Completions upstream the gateway runs the search on a fake SearXNG (docs/web-search.md).
const KEY = 'bw-agents-search-key-0123456789';
const COMBO = 'agent-on-chat';

let gw: TestGateway;
let search: FakeSearch;

beforeAll(async () => {
  search = await startFakeSearch();
  gw = await startGateway({
    config: (primary) => ({
      gateway: { apiKeys: [{ name: 'agents', key: KEY }] },
      providers: [
        {
          id: 'oc',
          format: 'openai-chat',
          baseUrl: `${primary.url}/v1`,
          authClass: 'api_key',
          connections: [{ id: 'oc-1', apiKey: 'sk-agents-chat-0123456789' }],
          models: ['chat-model'],
        },
      ],
      combos: [{ name: COMBO, strategy: 'priority', targets: ['oc/chat-model'] }],
      webSearch: { backend: 'searxng', url: search.url },
    }),
  });
});
afterAll(async () => {
  await gw?.close();
  await search?.close();
});

describe('claude-code web search on a Chat upstream', () => {
  it('completes a WebSearch tool use and shows the fake search result', async (ctx) => {
    const inst = await installed('claude-code');
    if ('skip' in inst) return ctx.skip(inst.skip);
    const box = sandbox();
    try {
      const target = { origin: gw.url, apiKey: KEY, models: [COMBO] };
      connectAgent('claude-code', box.home, target);
      const env = { ...quietEnv(box.home), ...AGENTS['claude-code'].env?.(target) };
      gw.primary.reset();
      search.reset();
      // The turn asks for WebSearch; WebSearch's own request searches once, then summarises;
      // the turn then answers with what the tool gave it.
      gw.primary.setDefault({ text: 'Per the search, Breakwater docs: SEARCH-TURN-OK.' });
      gw.primary.script(
        { toolCalls: [{ id: 'call_ws_1', name: 'WebSearch', arguments: { query: 'breakwater' } }] },
        { toolCalls: [{ id: 'call_s_1', name: 'web_search', arguments: { query: 'breakwater' } }] },
        { text: 'Breakwater is an LLM gateway, see https://breakwater.example/docs.' },
      );
      const run = await runAgent(
        inst.bin,
        ['-p', 'Search the web: what is Breakwater?', '--allowedTools', 'WebSearch'],
        { cwd: box.work, env, timeoutMs: 150_000 },
      );
      expect(run.stdout, run.stderr).toContain('SEARCH-TURN-OK');
      expect(search.requests.map((r) => r.query.q)).toEqual(['breakwater']);
      // The turn's last call carried WebSearch's result, with the fake's URL in it.
      const last = gw.primary.requests.at(-1)!.body;
      const tool = last.messages.find(
        (m: { role: string; tool_call_id?: string }) =>
          m.role === 'tool' && m.tool_call_id === 'call_ws_1',
      );
      expect(JSON.stringify(tool)).toContain(FAKE_RESULTS[0]!.url);
    } finally {
      box.dispose();
    }
  }, 400_000);
});
