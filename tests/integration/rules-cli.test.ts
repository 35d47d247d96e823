// `breakwater rules test FILE.json` against a running gateway, and `breakwater init --claude-code`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BreakwaterConfig } from '../../src/shared/contract';
import { killCliRuns, runCli } from '../support/cli-run';
import { standardConfig, startGateway, type TestGateway } from '../support/gateway';

const dir = mkdtempSync(join(tmpdir(), 'bw-rules-cli-'));
let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({
    config: (p, b) => ({
      ...standardConfig(p, b),
      rules: [
        { name: 'background', when: { model: 'claude-*haiku*' }, use: 'oa2/gpt-backup' },
        { name: 'thinking', when: { thinking: true }, use: 'claude' },
      ],
    }),
  });
});
afterEach(killCliRuns);
afterAll(async () => {
  await gw.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(args, { PATH: process.env.PATH, HOME: dir, ...env });

describe('breakwater rules test', () => {
  it('prints the rule a request takes and why each earlier one did not', async () => {
    const file = join(dir, 'request.json');
    writeFileSync(
      file,
      JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 2048 },
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    const r = run(['rules', 'test', file, '--url', gw.url], {
      BREAKWATER_ADMIN_TOKEN: gw.engine.adminToken,
    });
    expect(await r.exited).toBe(0);
    expect(r.stdout()).toContain('background: no, model claude-sonnet-4-5 is not claude-*haiku*');
    expect(r.stdout()).toContain('→ rule thinking → claude');
  });
});

describe('breakwater init --claude-code', () => {
  it('shows the Claude Code rules and writes them: background to the cheapest, long context to the widest', async () => {
    const out = join(dir, 'cc.json');
    const r = run(['init', '--yes', '--claude-code', '--out', out], {
      OPENAI_API_KEY: 'sk-x',
      ANTHROPIC_API_KEY: 'sk-y',
    });
    expect(await r.exited).toBe(0);
    expect(r.stdout()).toContain('Routing rules for Claude Code');
    const config = JSON.parse(readFileSync(out, 'utf8')) as BreakwaterConfig;
    expect(config.rules).toEqual([
      { name: 'background', when: { model: 'claude-*haiku*' }, use: 'openai/gpt-5-nano' },
      { name: 'long-context', when: { minInputTokens: 60000 }, use: 'openai/gpt-4.1' },
    ]);
  });
});
