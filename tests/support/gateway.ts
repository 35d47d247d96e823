import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../src/main/engine/clock';
import { createEngine, type Engine } from '../../src/main/engine/engine';
import type { Logger } from '../../src/main/engine/logger';
import type { BreakwaterConfig, ProviderConfig, ProviderFormat } from '../../src/shared/contract';
import { type FakeUpstream, type FakeUpstreamOptions, startFakeUpstream } from './fake-upstream';

/** Secrets used by the test configs; tests assert they never leak. */
export const OPENAI_KEY = 'sk-test-openai-0123456789abcdef';
export const OPENAI_KEY_2 = 'sk-test-openai-2-0123456789abcdef';
export const ANTHROPIC_KEY = 'sk-ant-test-0123456789abcdef';

/** A logger that keeps every line, so tests can check what would have been printed. */
export function captureLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const add = (level: string) => (m: string) => {
    lines.push(`${level} ${m}`);
  };
  return { lines, debug: add('debug'), info: add('info'), warn: add('warn'), error: add('error') };
}

/** Where each provider format's API lives on a fake upstream. */
const FAKE_API_PATH: Record<ProviderFormat, string> = {
  openai: '/v1',
  'openai-chat': '/v1',
  anthropic: '',
  gemini: '/v1beta',
};

/** A provider with one connection `<id>-1` on a fake upstream, at its format's API path. */
export function fakeProvider(
  id: string,
  format: ProviderFormat,
  upstream: FakeUpstream,
  models: string[],
  apiKey: string,
): ProviderConfig {
  return {
    id,
    format,
    baseUrl: `${upstream.url}${FAKE_API_PATH[format]}`,
    authClass: 'api_key',
    connections: [{ id: `${id}-1`, apiKey }],
    models,
  };
}

/**
 * Two fake upstreams (primary and backup, each speaking every format) behind providers:
 * `oa` and `oa2` (OpenAI format), `an` (Anthropic), and combos `coder` (oa → oa2) and
 * `claude` (an only).
 */
export function standardConfig(primary: FakeUpstream, backup: FakeUpstream): BreakwaterConfig {
  return {
    providers: [
      {
        id: 'oa',
        format: 'openai',
        baseUrl: `${primary.url}/v1`,
        authClass: 'api_key',
        connections: [{ id: 'oa-1', apiKey: OPENAI_KEY }],
        models: ['gpt-test', 'gpt-shared'],
      },
      {
        id: 'oa2',
        format: 'openai',
        baseUrl: `${backup.url}/v1`,
        authClass: 'api_key',
        connections: [{ id: 'oa2-1', apiKey: OPENAI_KEY_2 }],
        models: ['gpt-backup', 'gpt-shared'],
      },
      {
        id: 'an',
        format: 'anthropic',
        baseUrl: primary.url,
        authClass: 'api_key',
        connections: [{ id: 'an-1', apiKey: ANTHROPIC_KEY }],
        models: ['claude-test'],
      },
    ],
    combos: [
      { name: 'coder', strategy: 'priority', targets: ['oa/gpt-test', 'oa2/gpt-backup'] },
      { name: 'claude', strategy: 'priority', targets: ['an/claude-test'] },
    ],
  };
}

export interface TestGateway {
  engine: Engine;
  url: string;
  dataDir: string;
  primary: FakeUpstream;
  backup: FakeUpstream;
  log: ReturnType<typeof captureLogger>;
  /** Calls the admin API with the admin token. */
  admin(path: string, init?: RequestInit): Promise<Response>;
  /** Closes every breaker, clears every cooldown and lockout, so tests start healthy. */
  resetResilience(): void;
  /** Stops the engine and starts a new one on the same data dir (no config unless given). */
  restart(config?: BreakwaterConfig): Promise<void>;
  close(): Promise<void>;
}

export async function startGateway(
  opts: {
    config?: (primary: FakeUpstream, backup: FakeUpstream) => BreakwaterConfig;
    env?: NodeJS.ProcessEnv;
    /** The engine's clock (kept across restarts). */
    clock?: Clock;
    /** The engine's random source for jitter. */
    random?: () => number;
    /** Options of both fake upstreams (e.g. `promptCache`). */
    fakes?: FakeUpstreamOptions;
  } = {},
): Promise<TestGateway> {
  const primary = await startFakeUpstream(opts.fakes);
  const backup = await startFakeUpstream(opts.fakes);
  const root = mkdtempSync(join(tmpdir(), 'bw-gw-'));
  // A dir the engine creates itself, as on a first start.
  const dataDir = join(root, 'data');
  const log = captureLogger();
  const build = (config: BreakwaterConfig | undefined) =>
    createEngine({
      ...(config ? { config } : {}),
      dataDir,
      port: 0,
      log,
      // The quota wait (on by default) would hold the many tests that expect an answer at once;
      // its own tests switch it on.
      env: {
        BREAKWATER_QUOTA_WAIT_MAX_WAIT_MS: '0',
        ...opts.env,
        BREAKWATER_ADMIN_TOKEN: undefined,
      },
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.random ? { random: opts.random } : {}),
    });
  let engine = build((opts.config ?? standardConfig)(primary, backup));
  let url = (await engine.listen()).baseUrl;
  const gw: TestGateway = {
    get engine() {
      return engine;
    },
    get url() {
      return url;
    },
    dataDir,
    primary,
    backup,
    log,
    admin(path, init = {}) {
      return fetch(`${url}${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${engine.adminToken}`,
          ...(init.body ? { 'content-type': 'application/json' } : {}),
          ...(init.headers as Record<string, string> | undefined),
        },
      });
    },
    resetResilience() {
      engine.admin.resetBreakers({});
      for (const c of engine.admin.connectionStates())
        engine.admin.clearConnectionState({ connection: c.id });
      for (const l of engine.admin.listLockouts()) engine.admin.clearLockout(l);
    },
    async restart(config) {
      await engine.stop({ graceMs: 1000 });
      engine = build(config);
      url = (await engine.listen()).baseUrl;
    },
    async close() {
      await engine.stop({ graceMs: 0 });
      await Promise.all([primary.close(), backup.close()]);
      rmSync(root, { recursive: true, force: true });
    },
  };
  return gw;
}

/** Polls `check` until it returns true (request log rows are written asynchronously). */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 3000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('condition not met in time');
}
