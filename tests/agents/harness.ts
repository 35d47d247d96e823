// Real coding agents from the npm registry, driven through a gateway on loopback. Each agent is
// installed once (pinned) into a cache folder of its own, outside the project's node_modules,
// and runs with a temp HOME written by `connect`, telemetry and update checks off, and a dead
// proxy for anything that is not loopback.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type AgentId, connectAgent } from '../../src/main/engine/agents';

const run = promisify(execFile);

export const CACHE =
  process.env.BREAKWATER_AGENTS_CACHE ?? join(homedir(), '.cache', 'breakwater-agents');

interface Install {
  pkg: string;
  version: string;
  bin: string;
  /**
   * The package's own install script, run by hand: npm here may be set not to run install
   * scripts, and Claude Code's places its native binary.
   */
  postinstall?: string;
}

export const INSTALLS: Record<AgentId, Install> = {
  'claude-code': {
    pkg: '@anthropic-ai/claude-code',
    version: '2.1.332',
    bin: 'claude',
    postinstall: 'install.cjs',
  },
  codex: { pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
  opencode: { pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
  'qwen-code': { pkg: '@qwen-code/qwen-code', version: '0.24.4', bin: 'qwen' },
  'gemini-cli': { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
};

/** The agent's executable, installing it on first use; a reason string when it cannot be. */
export async function installed(agent: AgentId): Promise<{ bin: string } | { skip: string }> {
  const i = INSTALLS[agent];
  const dir = join(CACHE, `${agent}-${i.version}`);
  const bin = join(dir, 'node_modules', '.bin', i.bin);
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    try {
      await run(
        'flock',
        [
          '/tmp/npm.lock',
          'npm',
          'install',
          '--prefix',
          dir,
          '--save-exact',
          '--no-audit',
          '--no-fund',
          `${i.pkg}@${i.version}`,
        ],
        { timeout: 600_000 },
      );
      if (i.postinstall) {
        await run(process.execPath, [join(dir, 'node_modules', i.pkg, i.postinstall)], {
          cwd: join(dir, 'node_modules', i.pkg),
          timeout: 300_000,
        });
      }
    } catch (err) {
      return {
        skip: `${i.pkg}@${i.version} could not be installed: ${(err as Error).message.split('\n')[0]}`,
      };
    }
  }
  if (!existsSync(bin)) return { skip: `${i.pkg}@${i.version} installed no ${i.bin} executable` };
  return { bin };
}

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A temp HOME and working folder for one run, removed by `dispose`. */
export function sandbox(): { home: string; work: string; dispose(): void } {
  const root = mkdtempSync(join(tmpdir(), 'bw-agent-'));
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(home);
  mkdirSync(work);
  writeFileSync(join(work, 'notes.txt'), 'The secret word is breakwater.\n');
  return { home, work, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

/** Environment every agent runs with: no telemetry, no update checks, nothing off loopback. */
export function quietEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    TERM: 'dumb',
    CI: '1',
    NO_COLOR: '1',
    // Whatever is not loopback goes to a port where nothing listens.
    HTTP_PROXY: 'http://127.0.0.1:9',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
    DO_NOT_TRACK: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    GEMINI_TELEMETRY_ENABLED: 'false',
    OPENCODE_DISABLE_AUTOUPDATE: 'true',
    OPENCODE_DISABLE_SHARE: 'true',
    OPENCODE_DISABLE_MODELS_FETCH: 'true',
    OPENCODE_DISABLE_LSP_DOWNLOAD: 'true',
  };
}

export function runAgent(
  bin: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<AgentRun> {
  return new Promise((done) => {
    const child = spawn(bin, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

export { connectAgent };
