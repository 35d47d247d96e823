import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_IDS, AGENTS, type AgentId } from '../../src/main/engine/agents';
import type { BreakwaterConfig } from '../../src/shared/contract';
import type { RecordedRequest } from '../support/fake-upstream';
import { startGateway, type TestGateway } from '../support/gateway';
import { connectAgent, installed, quietEnv, runAgent, sandbox } from './harness';

// Each agent, set up by `connect` in a temp HOME, completes a text turn and a tool turn through
// the gateway, on a Chat Completions upstream and on an Anthropic one (the fake upstream); the
// Gemini CLI (relayed as it is) and Claude Code (translated) also on a Gemini upstream.
const KEY = 'bw-agents-key-0123456789';
type Format = 'openai-chat' | 'anthropic' | 'gemini';
const FORMATS: Format[] = ['openai-chat', 'anthropic'];
const ON_GEMINI: readonly AgentId[] = ['gemini-cli', 'claude-code'];
const COMBO: Record<Format, string> = {
  'openai-chat': 'agent-on-chat',
  anthropic: 'agent-on-anthropic',
  gemini: 'agent-on-gemini',
};
/** The upstream path every request of a turn goes to (Claude Code also counts tokens). */
const UPSTREAM_PATH: Record<Format, string> = {
  'openai-chat': '/v1/chat/completions',
  anthropic: '/v1/messages',
  gemini: '/v1beta/models/gemini-test:',
};

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
      {
        id: 'gm',
        format: 'gemini',
        baseUrl: `${primary.url}/v1beta`,
        authClass: 'api_key',
        connections: [{ id: 'gm-1', apiKey: 'AIza-agents-0123456789' }],
        models: ['gemini-test'],
      },
    ],
    combos: [
      { name: COMBO['openai-chat'], strategy: 'priority', targets: ['oc/chat-model'] },
      { name: COMBO.anthropic, strategy: 'priority', targets: ['an/claude-test'] },
      { name: COMBO.gemini, strategy: 'priority', targets: ['gm/gemini-test'] },
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
  const contents = (req.body?.contents ?? []) as {
    parts?: { functionResponse?: { id?: string } }[];
  }[];
  if (contents.some((c) => c.parts?.some((p) => p.functionResponse?.id === id))) return true;
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
  for (const format of ON_GEMINI.includes(agent) ? [...FORMATS, 'gemini' as const] : FORMATS) {
    it(`a text turn and a tool turn on a ${format} upstream`, async (ctx) => {
      const inst = await installed(agent);
      if ('skip' in inst) return ctx.skip(inst.skip);
      const box = sandbox();
      try {
        const target = {
          origin: gw.url,
          apiKey: KEY,
          models: [COMBO[format]],
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
        const wanted = UPSTREAM_PATH[format];
        expect(gw.primary.requests.every((r) => r.path.startsWith(wanted))).toBe(true);
      } finally {
        box.dispose();
      }
    }, 400_000);
  }
});
