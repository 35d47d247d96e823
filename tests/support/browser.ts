// The end-to-end tests' dashboard in a real browser: Debian Chromium driven by playwright-core
// against the headless server's `/ui`, served by an engine on loopback in front of fake upstreams.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { createEngine, type Engine, type EngineOptions } from '../../src/main/engine/engine';
import { type FakeUpstream, type FakeUpstreamOptions, startFakeUpstream } from './fake-upstream';
import { captureLogger } from './gateway';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The built dashboard the engine serves at `/ui`. */
export const UI_DIR = join(ROOT, 'out', 'renderer');
/** Where the tests write their screenshots. */
export const ARTIFACTS = join(ROOT, 'tests', 'e2e', 'artifacts');
const CHROMIUM = process.env.BREAKWATER_E2E_CHROMIUM ?? '/usr/bin/chromium';
/** Why the browser tests skip (null when Chromium is there), for the skip to say so. */
export const chromiumMissing = existsSync(CHROMIUM)
  ? null
  : `no Chromium at ${CHROMIUM} (install Debian's chromium: apt-get install -y chromium)`;

/** Builds the app (main, preload, renderer) when src/ is newer than out/. */
export function buildIfStale(): void {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-if-stale.mjs')], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (build.status !== 0) throw new Error(`build failed:\n${build.stderr}`);
}

/** The dashboard's address signed in with `token` (in the fragment, which is never sent). */
export function dashboardLink(base: string, token: string): string {
  return `${base}/ui/#token=${encodeURIComponent(token)}`;
}

export interface BrowserGateway {
  engine: Engine;
  base: string;
  upstreams: FakeUpstream[];
  /** A temp dir removed on close; the engine's data dir is `data` in it. */
  dir: string;
  log: ReturnType<typeof captureLogger>;
  browser: Browser;
  page: Page;
  /** The admin API with the admin token, answering its JSON. */
  admin<T = unknown>(path: string, init?: RequestInit): Promise<T>;
  /** One non-streaming Chat Completions request through the gateway. */
  chat(model: string, headers?: Record<string, string>): Promise<Response>;
  /** Opens a dashboard page from the navigation (its name as the link starts). */
  go(pageName: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds the app if stale, starts `upstreams` fake upstreams and an engine serving the built
 * dashboard (with the options `engine` returns, given the upstreams and the temp dir), and opens a
 * Chromium page of `viewport` size. `close` undoes all of it.
 */
export async function startBrowserGateway(opts: {
  name: string;
  viewport: { width: number; height: number };
  upstreams?: FakeUpstreamOptions[];
  engine?: (upstreams: FakeUpstream[], dir: string) => Partial<EngineOptions>;
}): Promise<BrowserGateway> {
  buildIfStale();
  mkdirSync(ARTIFACTS, { recursive: true });
  // What is started so far, undone last first by `close` (or here when a later step fails).
  const undo: (() => unknown)[] = [];
  const close = async () => {
    for (const step of undo.splice(0).reverse()) await step();
  };
  const upstreams: FakeUpstream[] = [];
  undo.push(() => Promise.all(upstreams.map((u) => u.close())));
  const dir = mkdtempSync(join(tmpdir(), `bw-e2e-${opts.name}-`));
  undo.push(() => rmSync(dir, { recursive: true, force: true }));
  const log = captureLogger();
  let engine: Engine;
  let base: string;
  let browser: Browser;
  let page: Page;
  try {
    for (const o of opts.upstreams ?? [{}]) upstreams.push(await startFakeUpstream(o));
    engine = createEngine({
      dataDir: join(dir, 'data'),
      port: 0,
      log,
      // As in the API tests: pages that show a failure need the answer now, not after a wait.
      env: { BREAKWATER_QUOTA_WAIT_MAX_WAIT_MS: '0' },
      uiDir: UI_DIR,
      ...opts.engine?.(upstreams, dir),
    });
    const started = engine;
    undo.push(() => started.stop({ graceMs: 0 }));
    base = (await engine.listen()).baseUrl;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    const launched = browser;
    undo.push(() => launched.close());
    page = await (await browser.newContext({ viewport: opts.viewport })).newPage();
  } catch (err) {
    await close();
    throw err;
  }
  return {
    engine,
    base,
    upstreams,
    dir,
    log,
    browser,
    page,
    async admin<T>(path: string, init: RequestInit = {}): Promise<T> {
      const res = await fetch(`${base}${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${engine.adminToken}`,
          ...(init.body ? { 'content-type': 'application/json' } : {}),
        },
      });
      return (await res.json()) as T;
    },
    chat: (model, headers = {}) =>
      fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      }),
    go: (pageName) =>
      page
        .getByRole('navigation', { name: 'Pages' })
        .getByRole('link', { name: new RegExp(`^${pageName}`, 'i') })
        .click(),
    close,
  };
}
