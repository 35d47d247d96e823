import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_IDS, AGENTS, type AgentId } from '../../src/main/engine/agents';
import type { BreakwaterConfig } from '../../src/shared/contract';
import type { RecordedRequest } from '../support/fake-upstream';
import { startGateway, type TestGateway } from '../support/gateway';
import { connectAgent, installed, quietEnv, runAgent, sandbox } from './harness';

// Each agent, set up by `connect` in a temp HOME, completes a text turn and a tool turn through
// the gateway, on a Chat Completions upstream and on an Anthropic one (the fake upstream).
const KEY = 'bw-agents-key-0123456789';
const FORMATS = ['openai-chat', 'anthropic'] as const;

let gw: TestGateway;

function config(primary: { url: string }): BreakwaterConfig {
  return {
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
      {
        id: 'an',
        format: 'anthropic',
        baseUrl: primary.url,
        authClass: 'api_key',
        connections: [{ id: 'an-1', apiKey: 'sk-ant-agents-0123456789' }],
        models: ['claude-test'],
      },
    ],
    combos: [
      { name: 'agent-on-chat', strategy: 'priority', targets: ['oc/chat-model'] },
      { name: 'agent-on-anthropic', strategy: 'priority', targets: ['an/claude-test'] },
    ],
  } as BreakwaterConfig;
}

beforeAll(async () => {
  gw = await startGateway({ config: (primary) => config(primary) });
});
afterAll(() => gw?.close());

const PROMPT = 'What is the secret word in notes.txt?';

/** How each agent runs one prompt headless, and a tool of its own the fake asks it to call. */
const AGENT: Record<
  AgentId,
  {
    args: string[];
    tool: (work: string) => { name: string; arguments: Record<string, unknown> };
    /** Requests it sends before the turn's own (opencode titles the session first). */
    before?: number;
  }
> = {
  'claude-code': {
    args: ['-p', PROMPT, '--allowedTools', 'Read'],
    tool: (work) => ({ name: 'Read', arguments: { file_path: `${work}/notes.txt` } }),
  },
  codex: {
    args: ['exec', '--skip-git-repo-check', PROMPT],
    tool: () => ({ name: 'exec_command', arguments: { cmd: 'cat notes.txt' } }),
  },
  opencode: {
    args: ['run', PROMPT],
    tool: (work) => ({ name: 'read', arguments: { filePath: `${work}/notes.txt` } }),
    before: 1,
  },
  'qwen-code': {
    args: ['-p', PROMPT, '--yolo'],
    tool: (work) => ({ name: 'read_file', arguments: { absolute_path: `${work}/notes.txt` } }),
  },
  'gemini-cli': {
    args: ['-p', PROMPT, '--yolo', '--skip-trust'],
    tool: (work) => ({ name: 'read_file', arguments: { file_path: `${work}/notes.txt` } }),
  },
};

/** Whether an upstream request carries the result of the call `id`, in its own format. */
function answersCall(req: RecordedRequest, id: string): boolean {
  const messages = (req.body?.messages ?? []) as {
    role: string;
    tool_call_id?: string;
    content?: unknown;
  }[];
  return messages.some(
    (m) =>
      m.tool_call_id === id ||
      (Array.isArray(m.content) &&
        m.content.some(
          (b: { type?: string; tool_use_id?: string }) =>
            b.type === 'tool_result' && b.tool_use_id === id,
        )),
  );
}

describe.each(AGENT_IDS)('%s through the gateway', (agent) => {
  for (const format of FORMATS) {
    it(`a text turn and a tool turn on a ${format} upstream`, async (ctx) => {
      const inst = await installed(agent);
      if ('skip' in inst) return ctx.skip(inst.skip);
      const box = sandbox();
      try {
        const target = {
          origin: gw.url,
          apiKey: KEY,
          models: [`agent-on-${format === 'anthropic' ? 'anthropic' : 'chat'}`],
        };
        connectAgent(agent, box.home, target);
        const env = { ...quietEnv(box.home), ...AGENTS[agent].env?.(target) };
        const turn = () =>
          runAgent(inst.bin, AGENT[agent].args, { cwd: box.work, env, timeoutMs: 150_000 });

        gw.primary.reset();
        gw.primary.setDefault({ text: 'The answer is TEXT-TURN-OK.' });
        const text = await turn();
        expect(text.stdout, text.stderr).toContain('TEXT-TURN-OK');

        gw.primary.reset();
        gw.primary.setDefault({ text: 'The secret word is TOOL-TURN-OK.' });
        const side = Array.from({ length: AGENT[agent].before ?? 0 }, () => ({ text: 'Notes' }));
        gw.primary.script(...side, {
          toolCalls: [{ id: 'call_bw_1', ...AGENT[agent].tool(box.work) }],
        });
        const tool = await turn();
        expect(tool.stdout, tool.stderr).toContain('TOOL-TURN-OK');
        expect(gw.primary.requests.some((r) => answersCall(r, 'call_bw_1'))).toBe(true);
        // Claude Code also counts tokens (`/v1/messages/count_tokens`).
        const wanted = format === 'anthropic' ? '/v1/messages' : '/v1/chat/completions';
        expect(gw.primary.requests.every((r) => r.path.startsWith(wanted))).toBe(true);
      } finally {
        box.dispose();
      }
    }, 400_000);
  }
});
