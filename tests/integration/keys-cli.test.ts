import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError, keys, usage } from '../../src/main/cli-accounts';
import type { UsageReport } from '../../src/shared/contract';
import { startGateway, type TestGateway } from '../support/gateway';

// The commands in process (spawning the CLI costs seconds a run); main() only dispatches to them.
let gw: TestGateway;
const savedToken = process.env.BREAKWATER_ADMIN_TOKEN;

beforeAll(async () => {
  gw = await startGateway();
  process.env.BREAKWATER_ADMIN_TOKEN = gw.engine.adminToken;
});
afterAll(async () => {
  if (savedToken === undefined) delete process.env.BREAKWATER_ADMIN_TOKEN;
  else process.env.BREAKWATER_ADMIN_TOKEN = savedToken;
  await gw.close();
});

async function cli(...args: string[]): Promise<{ stdout: string; code: number; stderr: string }> {
  let stdout = '';
  const out = (s: string) => {
    stdout += s;
  };
  const [command, ...rest] = args;
  try {
    await (command === 'keys' ? keys : usage)([...rest, '--url', gw.url], out);
    return { stdout, stderr: '', code: 0 };
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    return { stdout, stderr: err.message, code: 2 };
  }
}

describe('breakwater keys and breakwater usage', () => {
  it('creates a key (secret shown once), lists it with its budget, revokes it by name', async () => {
    const created = await cli(
      'keys',
      'create',
      '--name',
      'ci',
      '--rpm',
      '30',
      '--usd-per-day',
      '5',
    );
    expect(created.code).toBe(0);
    const secret = /^(bw-\S+)$/m.exec(created.stdout)?.[1];
    expect(secret).toBeTruthy();
    const chat = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'oa/gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(200);
    const list = await cli('keys', 'list');
    expect(list.stdout).toMatch(/^ci\s+key_\w+\s+bw-\S+\s+api\s+live\s+1\/30 req\/min/m);
    expect(list.stdout).not.toContain(secret);
    const revoked = await cli('keys', 'revoke', 'ci');
    expect(revoked.stdout).toContain('revoked');
    expect((await cli('keys', 'list')).stdout).toMatch(/^ci\s.*revoked/m);
    const usage = await cli('usage', '--since', '1h', '--by', 'key', '--json');
    const report = JSON.parse(usage.stdout) as UsageReport;
    expect(report.rows.find((r) => r.group === 'ci')?.requests).toBe(1);
  });

  it('says what is wrong and exits 2', async () => {
    const res = await cli('keys', 'create');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--name');
    const bad = await cli('usage', '--by', 'colour');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('by must be one of');
  });
});
