import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AGENTS } from '../../src/main/engine/agents';
import type { BreakwaterConfig, EngineEvent } from '../../src/shared/contract';
import { wordsOf } from '../support/fake-continuation';
import { startGateway, type TestGateway } from '../support/gateway';
import { connectAgent, installed, quietEnv, runAgent, sandbox } from './harness';

// Issue 28: the upstream stream of an agent's turn is reset halfway through the answer; the
// gateway continues it, and the agent prints the whole answer once, with nothing repeated at the
// seam. `OFF=1` runs the same turns with continuation switched off, where they must fail.
const KEY = 'bw-agents-continue-key-0123456789';
type Format = 'openai-chat' | 'anthropic';
const FORMATS: Format[] = ['openai-chat', 'anthropic'];
const COMBO: Record<Format, string> = {
  'openai-chat': 'agent-on-chat',
  anthropic: 'agent-on-anthropic',
};
const FULL =
  'The seam holds: alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu, CONTINUED-TURN-OK.';
/** Past half, so the continuation, three repeated words included, is too short to be cut. */
const CUT = Math.ceil(wordsOf(FULL).length / 2) + 2;
const PROMPT = 'Recite the phonetic alphabet.';

/**
 * How each agent runs one prompt headless. Codex's web search tool is off: with it, the gateway
 * runs the search loop itself on non-stream upstream calls, where there is no stream to continue.
 */
const ARGS = {
  'claude-code': ['-p', PROMPT],
  codex: ['exec', '--skip-git-repo-check', '-c', 'web_search="disabled"', PROMPT],
} as const;

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
      { name: COMBO['openai-chat'], strategy: 'priority', targets: ['oc/chat-model'] },
      { name: COMBO.anthropic, strategy: 'priority', targets: ['an/claude-test'] },
    ],
  } as BreakwaterConfig;
}

let gw: TestGateway;
const events: EngineEvent[] = [];

beforeAll(async () => {
  gw = await startGateway({
    config: (primary) => config(primary),
    env: { BREAKWATER_STREAM_CONTINUATION: process.env.OFF ? 'false' : 'true' },
  });
  gw.engine.onEvent((e) => events.push(e));
});
afterAll(() => gw?.close());
beforeEach(() => {
  gw.primary.reset();
  events.length = 0;
  gw.resetResilience();
});

const occurrences = (haystack: string, needle: string): number => haystack.split(needle).length - 1;

describe.each(['claude-code', 'codex'] as const)('%s: a turn cut halfway', (agent) => {
  for (const format of FORMATS) {
    it(`on a ${format} upstream prints the whole answer once`, async (ctx) => {
      const inst = await installed(agent);
      if ('skip' in inst) return ctx.skip(inst.skip);
      const box = sandbox();
      try {
        const target = { origin: gw.url, apiKey: KEY, models: [COMBO[format]] };
        connectAgent(agent, box.home, target);
        const env = { ...quietEnv(box.home), ...AGENTS[agent].env?.(target) };
        // Every stream of the whole answer is reset halfway, so the agent's own retries never
        // get it; a continuation answers the rest, repeating the last three words first as a
        // sloppy model would.
        gw.primary.setDefault({
          finish: { text: FULL, repeatWords: 3 },
          byWords: true,
          resetAfterChunks: CUT,
          cutsInsideText: true,
        });
        const run = await runAgent(inst.bin, [...ARGS[agent]], {
          cwd: box.work,
          env,
          timeoutMs: 150_000,
        });
        expect(occurrences(run.stdout, FULL), `${run.stdout}\n${run.stderr}`).toBe(1);
        expect(events.filter((e) => e.type === 'stream.continued')).toHaveLength(1);
        // The continuation carried the words sent before the cut as the partial answer.
        const partial = wordsOf(FULL).slice(0, CUT).join('');
        expect(JSON.stringify(gw.primary.requests[1]?.body)).toContain(
          JSON.stringify(partial.trimEnd()).slice(1, -1),
        );
      } finally {
        box.dispose();
      }
    }, 400_000);
  }
});
