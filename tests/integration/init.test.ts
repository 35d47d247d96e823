import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/main/engine/engine';
import { createStderrLogger } from '../../src/main/engine/logger';
import { killCliRuns, listening, runCli } from '../support/cli-run';

const ROOT = resolve(__dirname, '../..');
const FIXTURES = join(ROOT, 'tests/fixtures/import');

const dir = mkdtempSync(join(tmpdir(), 'bw-init-'));
afterEach(killCliRuns);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI with a clean environment: only the variables the test names. */
const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(args, { PATH: process.env.PATH, HOME: dir, BREAKWATER_ADMIN_TOKEN: '', ...env });

describe('breakwater init', () => {
  it('--yes writes a config of the keys found, by reference only, that starts the gateway', async () => {
    const out = join(dir, 'breakwater.json');
    const env = { OPENAI_API_KEY: 'sk-init-secret-1', ANTHROPIC_API_KEY: 'sk-init-secret-2' };
    const init = run(['init', '--yes', '--out', out], env);
    expect(await init.exited).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text + init.stdout() + init.stderr()).not.toContain('sk-init-secret');
    const config = JSON.parse(text);
    const byId = Object.fromEntries(config.providers.map((p: { id: string }) => [p.id, p]));
    expect(byId.openai.connections).toEqual([{ id: 'openai-1', apiKeyEnv: 'OPENAI_API_KEY' }]);
    expect(byId.anthropic.connections).toEqual([
      { id: 'anthropic-1', apiKeyEnv: 'ANTHROPIC_API_KEY' },
    ]);
    expect(config.combos[0]).toMatchObject({ name: 'coder', strategy: 'priority' });
    expect(config.combos[0].targets.slice(0, 2)).toEqual([
      'openai/gpt-5',
      'anthropic/claude-sonnet-4-5',
    ]);

    const serve = run(
      ['serve', '--config', out, '--port', '0', '--data-dir', join(dir, 'data-init')],
      env,
    );
    const url = await listening(serve, 40_000);
    const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(expect.arrayContaining(['coder', 'openai/gpt-5']));
    serve.child.kill('SIGTERM');
    await serve.exited;

    const again = run(['init', '--yes', '--out', out], env);
    expect(await again.exited).toBe(2);
    expect(again.stderr()).toMatch(/exists; pass another --out/);
  }, 120_000);
});

describe('breakwater import', () => {
  it('--dry-run shows what would be imported and skipped, writes nothing, prints no secret', async () => {
    const dataDir = join(dir, 'data-dry');
    const r = run([
      'import',
      'litellm',
      join(FIXTURES, 'litellm.yaml'),
      '--data-dir',
      dataDir,
      '--dry-run',
    ]);
    expect(await r.exited).toBe(0);
    expect(r.stdout()).toMatch(/Would import \(dry run, nothing written\)/);
    expect(r.stdout()).toMatch(/combo gpt-4o from model_name gpt-4o: priority, 3 target\(s\)/);
    expect(r.stdout()).toMatch(/Skipped:\n {2}model_list\[4\] bedrock-claude: /);
    expect(r.stdout() + r.stderr()).not.toMatch(/secret|sk-litellm-master/);
    expect(existsSync(dataDir)).toBe(false);
  }, 60_000);

  it('writes providers, connections, combos and settings into the data dir, as serve reads them', async () => {
    const dataDir = join(dir, 'data-import');
    const r = run(['import', 'omniroute', join(FIXTURES, 'omniroute.json'), '--data-dir', dataDir]);
    expect(await r.exited).toBe(0);
    expect(r.stdout() + r.stderr()).not.toMatch(/secret/);
    const engine = createEngine({ dataDir, log: createStderrLogger('error') });
    try {
      const providers = engine.admin.listProviders();
      expect(providers.map((p) => p.id).sort()).toEqual(['box', 'openai', 'zhipu']);
      expect(
        providers.find((p) => p.id === 'openai')!.connections.map((c) => [c.id, c.hasSecret]),
      ).toEqual([
        ['openai-1', true],
        ['openai-2', true],
      ]);
      expect(
        engine.admin
          .listCombos()
          .map((c) => c.name)
          .sort(),
      ).toEqual(['coding', 'fancy', 'spread']);
      const lockout = engine.admin.getSettings().find((s) => s.key === 'modelLockout.enabled')!;
      expect(lockout.value).toBe(false);
    } finally {
      await engine.stop({ graceMs: 0 });
    }
  }, 60_000);

  it('refuses a broken file with the line and the reason, and an unknown tool', async () => {
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{\n  "Providers": [\n    { "name": "x", }\n  ]\n}\n');
    const r = run(['import', 'claude-code-router', broken, '--data-dir', join(dir, 'data-broken')]);
    expect(await r.exited).toBe(2);
    expect(r.stderr()).toMatch(/broken\.json refused: line 3: not valid JSON/);
    const u = run(['import', 'nope', broken]);
    expect(await u.exited).toBe(2);
    expect(u.stderr()).toMatch(
      /import needs a tool: omniroute, claude-code-router, litellm, cc-switch/,
    );
  }, 60_000);
});
