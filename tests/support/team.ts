// Team mode: gateway processes (`breakwater serve` through tsx) sharing one Redis, each with its
// own data dir, for tests that need several instances at once.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BreakwaterConfig, Snapshot, TeamView } from '../../src/shared/contract';
import { type CliRun, listening, runCli } from './cli-run';

export const TEAM_ADMIN_TOKEN = 'bw-team-test-admin-token-0123456789';

export interface TeamInstance {
  name: string;
  url: string;
  run: CliRun;
  admin(path: string, init?: RequestInit): Promise<Response>;
  state(): Promise<Snapshot>;
  team(): Promise<TeamView | undefined>;
  stop(): Promise<void>;
}

/** Starts one instance with `config` plus `state: redis` on `redis` (any form) under `keyPrefix`. */
export async function startInstance(
  name: string,
  root: string,
  config: BreakwaterConfig,
  redis: NonNullable<BreakwaterConfig['state']>['redis'] & { keyPrefix: string },
): Promise<TeamInstance> {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'breakwater.json');
  const withState: BreakwaterConfig = {
    ...config,
    state: { backend: 'redis', redis },
  };
  writeFileSync(file, JSON.stringify(withState));
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('BREAKWATER_') && v !== undefined) env[k] = v;
  env.BREAKWATER_ADMIN_TOKEN = TEAM_ADMIN_TOKEN;
  const run = runCli(
    ['serve', '--config', file, '--port', '0', '--data-dir', join(dir, 'data')],
    env,
  );
  const url = await listening(run, 30_000);
  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${url}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${TEAM_ADMIN_TOKEN}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...(init.headers as Record<string, string> | undefined),
      },
    });
  return {
    name,
    url,
    run,
    admin,
    state: async () => (await (await admin('/api/state')).json()) as Snapshot,
    team: async () =>
      ((await (await fetch(`${url}/api/health`)).json()) as { team?: TeamView }).team,
    async stop() {
      if (run.child.exitCode !== null) return;
      run.child.kill('SIGTERM');
      await run.exited;
    },
  };
}

/** Polls until `check` holds (or throws with `what` after `timeoutMs`). */
export async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 5_000,
): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    if (await check()) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** One non-streaming Chat Completions request to an instance (with `headers`, e.g. a key). */
export function chat(
  url: string,
  model: string,
  headers: Record<string, string>,
): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
}
