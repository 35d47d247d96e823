// `breakwater keys …` and `breakwater usage …`: the admin API's gateway keys and usage for a
// running instance, from the terminal.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type AdminActions, createAdminClient } from '../shared/admin-client';
import type {
  BridgeResult,
  GatewayKeyInput,
  GatewayKeyView,
  KeyLimits,
  UsageGroupBy,
} from '../shared/contract';
import { adminTokenPath, DEFAULT_HOST, DEFAULT_PORT, defaultDataDir } from './engine/index';

export const ACCOUNTS_USAGE = `  breakwater keys list   [--json]
  breakwater keys create --name NAME [--scope S]... [--allow CONNECTION]... [LIMITS] [--json]
  breakwater keys update ID|NAME [--name NEW] [--scope S]... [--allow CONNECTION]... [LIMITS]
  breakwater keys revoke ID|NAME
  breakwater keys rotate ID|NAME [--json]
  breakwater usage [--since 7d] [--by model|provider|connection|key|combo|session] [--json]
      (keys and usage also take --url URL and --data-dir DIR, as status does)
  LIMITS: --rpm N, --tokens-per-day N, --usd-per-day X, --usd-per-month X`;

/** Thrown for a usage mistake or a refusal; the CLI prints it and exits 2. */
export class CliError extends Error {}

const CONNECTION = {
  url: { type: 'string' },
  'data-dir': { type: 'string' },
  json: { type: 'boolean' },
} as const;

const KEY_FIELDS = {
  name: { type: 'string' },
  scope: { type: 'string', multiple: true },
  allow: { type: 'string', multiple: true },
  rpm: { type: 'string' },
  'tokens-per-day': { type: 'string' },
  'usd-per-day': { type: 'string' },
  'usd-per-month': { type: 'string' },
} as const;

/** The admin token of the instance: `BREAKWATER_ADMIN_TOKEN`, else `<data-dir>/admin-token`. */
export function adminToken(dataDir: string | undefined): string {
  const fromEnv = process.env.BREAKWATER_ADMIN_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  const file = adminTokenPath(dataDir ?? defaultDataDir());
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    throw new CliError(
      `no admin token: set BREAKWATER_ADMIN_TOKEN or pass the --data-dir of the running instance (looked for ${file})`,
    );
  }
}

export function client(values: { url?: string; 'data-dir'?: string }): AdminActions {
  const baseUrl = (values.url ?? `http://${DEFAULT_HOST}:${DEFAULT_PORT}`).replace(/\/+$/, '');
  const token = adminToken(values['data-dir']);
  return createAdminClient({ baseUrl, token: () => token });
}

export async function ok<T>(result: Promise<BridgeResult<T>>): Promise<T> {
  const r = await result;
  if (!r.ok) throw new CliError(`${r.error}${r.field ? ` (${r.field})` : ''}`);
  return r.data;
}

function numberOption(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new CliError(`${flag} must be a number above 0`);
  return n;
}

function keyInput(v: {
  name?: string;
  scope?: string[];
  allow?: string[];
  rpm?: string;
  'tokens-per-day'?: string;
  'usd-per-day'?: string;
  'usd-per-month'?: string;
}): GatewayKeyInput {
  const input: GatewayKeyInput = {};
  if (v.name !== undefined) input.name = v.name;
  if (v.scope) input.scopes = v.scope;
  if (v.allow) input.allowedConnections = v.allow;
  const limits: KeyLimits = {};
  const rpm = numberOption(v.rpm, '--rpm');
  if (rpm !== undefined) limits.requestsPerMinute = rpm;
  const tpd = numberOption(v['tokens-per-day'], '--tokens-per-day');
  if (tpd !== undefined) limits.tokensPerDay = tpd;
  const upd = numberOption(v['usd-per-day'], '--usd-per-day');
  if (upd !== undefined) limits.usdPerDay = upd;
  const upm = numberOption(v['usd-per-month'], '--usd-per-month');
  if (upm !== undefined) limits.usdPerMonth = upm;
  if (Object.keys(limits).length > 0) input.limits = limits;
  return input;
}

function usd(n: number): string {
  return `$${n.toFixed(n < 1 ? 4 : 2)}`;
}

function limitsText(k: GatewayKeyView): string {
  const l = k.limits;
  const s = k.spend;
  const parts: string[] = [];
  if (l.requestsPerMinute) parts.push(`${s.requestsThisMinute}/${l.requestsPerMinute} req/min`);
  if (l.tokensPerDay) parts.push(`${s.tokensToday}/${l.tokensPerDay} tokens today`);
  if (l.usdPerDay) parts.push(`${usd(s.usdToday)}/${usd(l.usdPerDay)} today`);
  if (l.usdPerMonth) parts.push(`${usd(s.usdThisMonth)}/${usd(l.usdPerMonth)} this month`);
  return parts.length > 0 ? parts.join(', ') : `no limits; ${usd(s.usdThisMonth)} this month`;
}

/** Left-aligned columns, two spaces apart. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return `${rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

async function findKey(api: AdminActions, ref: string | undefined): Promise<GatewayKeyView> {
  if (!ref) throw new CliError('name the key: its id or its name');
  const keys = await ok(api.listKeys());
  const key = keys.find((k) => k.id === ref) ?? keys.find((k) => k.name === ref && !k.revokedAt);
  if (!key) throw new CliError(`no gateway key with id or name "${ref}"`);
  return key;
}

function secretNotice(name: string, key: string): string {
  return `Key "${name}" (shown once; store it now):\n${key}\n`;
}

export async function keys(args: string[], out: (s: string) => void): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { ...CONNECTION, ...KEY_FIELDS },
    allowPositionals: true,
    strict: true,
  });
  const api = client(values);
  const json = (data: unknown) => out(`${JSON.stringify(data, null, 2)}\n`);
  if (action === 'list') {
    const list = await ok(api.listKeys());
    if (values.json) return json(list);
    const rows = [['NAME', 'ID', 'PREFIX', 'SOURCE', 'STATE', 'BUDGET']];
    for (const k of list) {
      const state = k.revokedAt ? 'revoked' : 'live';
      rows.push([k.name, k.id, k.prefix || '-', k.source, state, limitsText(k)]);
    }
    return out(table(rows));
  }
  if (action === 'create') {
    if (!values.name) throw new CliError('keys create needs --name NAME');
    const created = await ok(api.createKey(keyInput(values)));
    return values.json ? json(created) : out(secretNotice(created.name, created.key));
  }
  if (action === 'update') {
    const key = await findKey(api, positionals[0]);
    const updated = await ok(api.updateKey(key.id, keyInput(values)));
    return values.json ? json(updated) : out(`Key "${updated.name}" updated\n`);
  }
  if (action === 'revoke') {
    const key = await findKey(api, positionals[0]);
    await ok(api.revokeKey(key.id));
    return out(`Key "${key.name}" revoked: refused from the next request on\n`);
  }
  if (action === 'rotate') {
    const key = await findKey(api, positionals[0]);
    const rotated = await ok(api.rotateKey(key.id));
    return values.json ? json(rotated) : out(secretNotice(rotated.name, rotated.key));
  }
  throw new CliError(
    `unknown keys action "${action ?? ''}" (list, create, update, revoke, rotate)`,
  );
}

export async function usage(args: string[], out: (s: string) => void): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { ...CONNECTION, since: { type: 'string' }, by: { type: 'string' } },
    strict: true,
  });
  const report = await ok(
    client(values).getUsage({
      since: values.since ?? '7d',
      by: (values.by ?? 'model') as UsageGroupBy,
    }),
  );
  if (values.json) return out(`${JSON.stringify(report, null, 2)}\n`);
  const rows = [
    ['GROUP', 'REQUESTS', 'INPUT', 'OUTPUT', 'CACHE READ', 'CACHE WRITE', 'CACHE HIT', 'COST'],
  ];
  for (const r of report.rows) {
    rows.push([
      r.group || '(none)',
      String(r.requests),
      String(r.inputTokens),
      String(r.outputTokens),
      String(r.cacheReadTokens),
      String(r.cacheWriteTokens),
      r.cacheHitRate == null ? '-' : `${(100 * r.cacheHitRate).toFixed(1)} %`,
      usd(r.costUsd),
    ]);
  }
  out(report.rows.length > 0 ? table(rows) : 'No usage in that time.\n');
}
