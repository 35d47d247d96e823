// Headless entry: `breakwater serve` and `breakwater status`. Plain Node, no Electron.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BreakwaterConfig, ImportReport, Snapshot } from '../shared/contract';
import { ACCOUNTS_USAGE, CliError, keys, usage } from './cli-accounts';
import { connect } from './cli-connect';
import { offerClaudeCodeRules, RULES_USAGE, rules } from './cli-rules';
import { runStatusline } from './cli-statusline';
import {
  adminTokenPath,
  configFromDetected,
  createEngine,
  createStderrLogger,
  DEFAULT_HOST,
  DEFAULT_PORT,
  defaultDataDir,
  detectProviders,
  draftReport,
  IMPORTERS,
  ImportError,
  isImportTool,
  type LogLevel,
  loadConfigFile,
  loadPresets,
  VERSION,
} from './engine/index';

const USAGE = `Breakwater ${VERSION}: an LLM gateway that keeps coding agents working when providers fail.

Usage:
  breakwater serve  [--config FILE] [--host H] [--port P] [--data-dir DIR] [--log-level LEVEL]
  breakwater status [--url URL] [--data-dir DIR]
${ACCOUNTS_USAGE}
${RULES_USAGE}
  breakwater init   [--yes] [--claude-code] [--out FILE]
  breakwater import <omniroute|claude-code-router|litellm|cc-switch> FILE [--data-dir DIR] [--dry-run]
  breakwater connect <claude-code|codex|opencode|qwen-code|gemini-cli> [--url URL] [--key KEY] [--model M]... [--statusline] [--undo]
  breakwater statusline [--url URL] [--data-dir DIR]   (Claude Code's statusLine command: JSON on stdin)

  --config FILE    JSON config applied at start (providers, connections, combos, settings)
  --host H         address to bind (default ${DEFAULT_HOST}; others need gateway.apiKeys)
  --port P         port to bind (default ${DEFAULT_PORT}; 0 picks a free one)
  --data-dir DIR   where the database and admin token live (default: ${defaultDataDir()})
  --log-level L    debug | info | warn | error (default info)
  --url URL        gateway to query for status (default http://${DEFAULT_HOST}:${DEFAULT_PORT})
  --yes            init: take every provider found (keys in the environment, local servers)
  --claude-code    init: add the Claude Code routing rules (shown first) without asking
  --out FILE       init: the config file to write (default breakwater.json; never overwritten)
  --dry-run        import: show what would be imported and skipped, write nothing
  --key KEY        connect: the gateway API key the agent presents (default $BREAKWATER_API_KEY)
  --model M        connect: the models to offer, first the default (default: the gateway's combos)
  --statusline     connect claude-code: also set its statusLine to \`breakwater statusline\`
  --undo           connect: put the agent's files back as they were before connect

Environment: BREAKWATER_ADMIN_TOKEN sets the admin token instead of <data-dir>/admin-token;\nBREAKWATER_DATA_DIR changes the default --data-dir.`;

/** The built renderer next to this file (`out/main/cli.js` → `out/renderer`), when present. */
function dashboardDir(): string | undefined {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'renderer');
  return existsSync(join(dir, 'index.html')) ? dir : undefined;
}

function fail(message: string): never {
  process.stderr.write(`breakwater: ${message}\n`);
  process.exit(2);
}

function parsePort(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65_535)
    fail(`--port must be an integer 0-65535 (got "${raw}")`);
  return n;
}

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
    },
    strict: true,
  });
  const level = values['log-level'] as LogLevel;
  if (!['debug', 'info', 'warn', 'error'].includes(level)) fail(`unknown --log-level "${level}"`);
  const log = createStderrLogger(level);
  const dataDir = values['data-dir'] ?? defaultDataDir();
  const port = parsePort(values.port);
  const uiDir = dashboardDir();
  let engine: ReturnType<typeof createEngine>;
  let config: BreakwaterConfig = {};
  try {
    config = values.config ? loadConfigFile(values.config) : {};
    engine = createEngine({
      config,
      dataDir,
      ...(values.host !== undefined ? { host: values.host } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(uiDir ? { uiDir } : {}),
      log,
    });
  } catch (err) {
    fail((err as Error).message);
  }
  // Handlers go in before listening, so a signal during start-up also stops cleanly.
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      log.warn(`${signal} again: exiting without waiting`);
      process.exit(1);
    }
    stopping = true;
    log.info(`${signal}: finishing in-flight requests, then stopping`);
    engine
      .stop()
      .then(() => {
        log.info('stopped');
        process.exit(0);
      })
      .catch((err: unknown) => {
        log.error(`error while stopping: ${String(err)}`);
        process.exit(1);
      });
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.on(signal, () => shutdown(signal));
  let info: Awaited<ReturnType<typeof engine.listen>>;
  try {
    info = await engine.listen();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // The address asked for: flag, else the one saved from the dashboard, else the config file.
    const { port: wantedPort, host: wantedHost } = engine.snapshot().gateway;
    await engine.stop({ graceMs: 0 });
    if (e.code === 'EADDRINUSE')
      fail(
        `port ${wantedPort} is already in use; pick another with --port, or stop the other instance`,
      );
    if (e.code === 'EACCES') fail(`not allowed to bind ${wantedHost}:${wantedPort}`);
    fail(`cannot listen: ${e.message}`);
  }
  process.stdout.write(`Breakwater listening on ${info.baseUrl}\n`);
  if (uiDir) {
    process.stdout.write(`Dashboard: ${info.baseUrl}/ui\n`);
    // The one-click link carries the admin token in the fragment (never sent to any server).
    // Only on a terminal: piped output tends to end up in log files.
    if (process.stdout.isTTY) {
      process.stdout.write(
        `  sign-in link (contains the admin token, keep it private): ${info.baseUrl}/ui/#token=${encodeURIComponent(engine.adminToken)}\n`,
      );
    }
  } else {
    log.warn('dashboard not built: run `npm run build` to serve it at /ui');
  }
  log.info(
    `data dir ${dataDir}; admin token in ${process.env.BREAKWATER_ADMIN_TOKEN ? 'BREAKWATER_ADMIN_TOKEN' : adminTokenPath(dataDir)}`,
  );
  log.info(
    `point agents at it: ANTHROPIC_BASE_URL=${info.baseUrl}  OPENAI_BASE_URL=${info.baseUrl}/v1`,
  );
}

function formatSnapshot(s: Snapshot): string {
  const lines: string[] = [];
  const g = s.gateway;
  lines.push(`Breakwater ${g.version} at ${g.baseUrl}${g.paused ? ' (paused)' : ''}`);
  lines.push(`  requests ${g.requestsTotal}, errors ${g.errorsTotal}, in flight ${g.inFlight}`);
  const section = (title: string, rows: string[]) => {
    lines.push(`${title}:`);
    lines.push(...(rows.length > 0 ? rows.map((r) => `  ${r}`) : ['  (none)']));
  };
  const left = (until: number | null) =>
    until && until > s.at ? ` (${Math.ceil((until - s.at) / 1000)} s left)` : '';
  section(
    'Breakers',
    s.breakers.map(
      (b) =>
        `${b.provider}: ${b.state}, failures ${b.failureCount}${b.retryAfterMs > 0 ? `, retry in ${Math.ceil(b.retryAfterMs / 1000)} s` : ''}`,
    ),
  );
  section(
    'Connections',
    s.connections.map(
      (c) =>
        `${c.provider}/${c.id}: ${c.status}${left(c.rateLimitedUntil)}, in flight ${c.inFlight}${c.maxConcurrent ? `/${c.maxConcurrent}` : ''}${c.lane ? `, ${c.lane === 'slow' ? 'low-priority lane' : 'lane refused'}${left(c.laneUntil ?? null)}` : ''}${c.lastError ? `, last error: ${c.lastError}` : ''}`,
    ),
  );
  section(
    'Lockouts',
    s.lockouts.map(
      (l) =>
        `${l.provider}/${l.connection}/${l.model} (${l.scope}): ${l.reason}${left(l.expiresAt)}`,
    ),
  );
  section(
    'Queues',
    s.queues.map(
      (q) =>
        `${q.provider}/${q.connection}: running ${q.running}, queued ${q.queued}, rejected ${q.rejected}`,
    ),
  );
  section(
    'Sessions',
    s.sessions.map((x) => `${x.session.slice(0, 16)} → ${x.connection}${left(x.expiresAt)}`),
  );
  section(
    'Leases',
    s.leases.map(
      (l) => `${l.connection}: ${l.state} generation ${l.generation}${left(l.expiresAt)}`,
    ),
  );
  return `${lines.join('\n')}\n`;
}

async function status(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { url: { type: 'string' }, 'data-dir': { type: 'string' } },
    strict: true,
  });
  const base = (values.url ?? `http://${DEFAULT_HOST}:${DEFAULT_PORT}`).replace(/\/+$/, '');
  let token = process.env.BREAKWATER_ADMIN_TOKEN?.trim();
  if (!token) {
    const file = adminTokenPath(values['data-dir'] ?? defaultDataDir());
    try {
      token = readFileSync(file, 'utf8').trim();
    } catch {
      fail(
        `no admin token: set BREAKWATER_ADMIN_TOKEN or pass the --data-dir of the running instance (looked for ${file})`,
      );
    }
  }
  let res: Response;
  try {
    res = await fetch(`${base}/api/state`, { headers: { authorization: `Bearer ${token}` } });
  } catch {
    fail(`no Breakwater answering at ${base} (is it running? pass --url)`);
  }
  if (res.status === 401) fail(`the admin token was refused by ${base} (wrong --data-dir?)`);
  if (!res.ok) fail(`${base}/api/state answered HTTP ${res.status}`);
  process.stdout.write(formatSnapshot((await res.json()) as Snapshot));
}

/** Writes a config from the providers found in the environment and on local ports. */
async function init(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      yes: { type: 'boolean', default: false },
      out: { type: 'string', default: 'breakwater.json' },
      'claude-code': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const presets = loadPresets();
  let found = await detectProviders({ presets, env: process.env });
  if (found.length === 0)
    fail(
      'found no provider key in the environment (e.g. OPENAI_API_KEY, ANTHROPIC_API_KEY) and no local server (Ollama, LM Studio, llama.cpp, vLLM); set one and run again, or run `breakwater serve` and add providers in the dashboard',
    );
  if (!values.yes && !process.stdin.isTTY)
    fail('not a terminal: pass --yes to take every provider found');
  const rl = values.yes ? null : createInterface({ input: process.stdin, output: process.stdout });
  if (rl) {
    const kept = [];
    for (const d of found) {
      const from = d.keyEnv ? `key in $${d.keyEnv}` : `server at ${d.baseUrl}`;
      if (!/^n/i.test(await rl.question(`Add ${d.preset} (${from})? [Y/n] `))) kept.push(d);
    }
    found = kept;
  }
  const config = await offerClaudeCodeRules(configFromDetected(found, presets), rl, values);
  rl?.close();
  try {
    writeFileSync(values.out, `${JSON.stringify(config, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    fail(
      e.code === 'EEXIST'
        ? `${values.out} exists; pass another --out or move it away`
        : `cannot write ${values.out}: ${e.message}`,
    );
  }
  for (const d of found)
    process.stdout.write(
      `  ${d.preset}: ${d.keyEnv ? `key read from $${d.keyEnv} at request time` : `local server ${d.baseUrl}`}, ${d.models.length} model(s)\n`,
    );
  process.stdout.write(
    `Wrote ${values.out}. Start with: breakwater serve --config ${values.out}\n`,
  );
}

function printReport(r: ImportReport): void {
  process.stdout.write(`${r.dryRun ? 'Would import (dry run, nothing written)' : 'Imported'}:\n`);
  for (const line of r.imported) process.stdout.write(`  ${line}\n`);
  if (r.skipped.length > 0) process.stdout.write('Skipped:\n');
  for (const s of r.skipped) process.stdout.write(`  ${s.item}: ${s.reason}\n`);
}

/** Imports another gateway's config into the store of a data dir, as `serve` reads it. */
async function importFrom(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: { 'data-dir': { type: 'string' }, 'dry-run': { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  const [tool, file] = positionals;
  if (!isImportTool(tool)) return fail(`import needs a tool: ${Object.keys(IMPORTERS).join(', ')}`);
  if (!file || positionals.length > 2)
    fail(`usage: breakwater import ${tool} FILE [--data-dir DIR] [--dry-run]`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    fail(`cannot read ${file}: ${(err as Error).message}`);
  }
  if (values['dry-run']) {
    try {
      return printReport(draftReport(tool, IMPORTERS[tool](text), true));
    } catch (err) {
      if (err instanceof ImportError) fail(`${file} refused: ${err.message}`);
      throw err;
    }
  }
  const engine = createEngine({
    dataDir: values['data-dir'] ?? defaultDataDir(),
    log: createStderrLogger('warn'),
  });
  const result = await engine.actions.importConfig(tool, text, false);
  await engine.stop({ graceMs: 0 });
  if (!result.ok) fail(`${file} refused: ${result.error}`);
  printReport(result.data);
  process.stdout.write(
    'A gateway already running on this data dir shows the import after a restart.\n',
  );
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === 'serve') return await serve(rest);
    if (command === 'status') return await status(rest);
    if (command === 'keys') return await keys(rest, (s) => process.stdout.write(s));
    if (command === 'usage') return await usage(rest, (s) => process.stdout.write(s));
    if (command === 'init') return await init(rest);
    if (command === 'rules') return await rules(rest, (s) => process.stdout.write(s));
    if (command === 'import') return await importFrom(rest);
    if (command === 'connect') return await connect(rest);
    if (command === 'statusline') return await runStatusline(rest);
    if (command === '--version' || command === '-v') {
      process.stdout.write(`${VERSION}\n`);
      return;
    }
    if (command === '--help' || command === '-h' || command === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    if (command.startsWith('--')) return await serve(argv);
  } catch (err) {
    if (err instanceof CliError) fail(err.message);
    // parseArgs reports unknown or malformed options this way.
    fail(`${(err as Error).message}\n\n${USAGE}`);
  }
  fail(`unknown command "${command}"\n\n${USAGE}`);
}

void main(process.argv.slice(2));
