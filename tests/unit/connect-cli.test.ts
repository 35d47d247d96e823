import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../support/gateway';

const ROOT = resolve(__dirname, '../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const CLI = join(ROOT, 'src/main/cli.ts');

let gw: TestGateway;
let home: string;

beforeAll(async () => {
  gw = await startGateway();
  home = mkdtempSync(join(tmpdir(), 'bw-connect-cli-'));
});
afterAll(async () => {
  await gw?.close();
  rmSync(home, { recursive: true, force: true });
});

function cli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    const child = spawn(TSX, [CLI, 'connect', ...args], {
      env: { PATH: process.env.PATH, HOME: home, BREAKWATER_API_KEY: 'bw-env-key' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('exit', (code) => done({ code, out, err }));
  });
}

// Each case starts the CLI under tsx, which takes seconds on a busy machine.
describe('breakwater connect', { timeout: 60_000 }, () => {
  it("writes an agent's config with the running gateway's combos and the key from the environment", async () => {
    const r = await cli(['codex', '--url', gw.url]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const toml = readFileSync(join(home, '.codex/config.toml'), 'utf8');
    expect(toml).toContain('model = "coder"');
    expect(toml).toContain(`base_url = "${gw.url}/v1"`);
    // The key stays out of the file: Codex reads it from the variable connect names and prints.
    expect(toml).toContain('env_key = "BREAKWATER_API_KEY"');
    expect(toml).not.toContain('bw-env-key');
    expect(r.out).toContain('export BREAKWATER_API_KEY=bw-env-key');
    expect(r.out).toContain('undo with: breakwater connect codex --undo');
  });

  it('--undo removes a file connect created', async () => {
    expect((await cli(['codex', '--undo'])).out).toContain('removed');
    expect(existsSync(join(home, '.codex/config.toml'))).toBe(false);
  });

  it('a broken file is refused with the reason, exit code 2, the file untouched', async () => {
    mkdirSync(join(home, '.qwen'), { recursive: true });
    writeFileSync(join(home, '.qwen/settings.json'), '{ broken');
    const r = await cli(['qwen-code', '--model', 'coder']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/settings\.json is not valid JSON .*; nothing was changed/);
    expect(readFileSync(join(home, '.qwen/settings.json'), 'utf8')).toBe('{ broken');
  });
});
