// What the IPC handlers decide, without Electron: who may call (the sender check), what they may
// send (payload validation per channel), and what runs. `ipc.ts` only wires this to ipcMain, so
// every rule here is unit-tested under plain Node.

import type { BridgeResult } from '../../shared/contract';
import { ACTION_METHODS, type ActionMethod, type StartupError } from '../../shared/ipc';
import { LOCKOUT_KEY_FIELDS } from '../../shared/schema/lockout-key';
import { LOG_QUERY_FIELDS } from '../../shared/schema/log-query';
import { validateRules } from '../../shared/schema/rules';
import { isNonEmptyString, isPlainObject } from '../../shared/schema/values';
import { validateWebSearch } from '../../shared/schema/web-search';
import { ValidationError } from '../../shared/validation-error';
import type { Engine } from '../engine/index';
import { isAppUrl } from './decisions';

/** The facts about an IPC call's sender the check needs (taken from IpcMainInvokeEvent). */
export interface SenderInfo {
  /** `event.sender.id` */
  webContentsId: number;
  /** `event.senderFrame.url`, null when the frame is gone. */
  frameUrl: string | null;
  /** True when the frame is the top-level frame (no parent). */
  isMainFrame: boolean;
}

/** The app window, when it exists. */
export interface TrustedTarget {
  webContentsId: number;
  appUrl: string;
}

/** Only the app's own top-level page, in the app's own window, may call the main process. */
export function isTrustedSender(sender: SenderInfo, target: TrustedTarget | null): boolean {
  if (!target || sender.webContentsId !== target.webContentsId) return false;
  if (!sender.isMainFrame || sender.frameUrl === null) return false;
  return isAppUrl(sender.frameUrl, target.appUrl);
}

export const REFUSED_SENDER = 'refused: sender is not the Breakwater window';

// ---------------------------------------------------------------------------
// Payload validation: shapes only. The admin API validates the contents, as for any client.
// ---------------------------------------------------------------------------

type Check = (args: unknown[]) => string | null;

const MAX_ID = 200;

function isId(v: unknown): v is string {
  return isNonEmptyString(v) && v.length <= MAX_ID;
}

function arity(args: unknown[], min: number, max: number): string | null {
  if (args.length < min || args.length > max) {
    return min === max
      ? `expected ${min} argument${min === 1 ? '' : 's'}, got ${args.length}`
      : `expected ${min}-${max} arguments, got ${args.length}`;
  }
  return null;
}

const none: Check = (args) => arity(args, 0, 0);

/** The shared schema's refusal, as a payload problem. */
function schemaProblem(check: () => unknown): string | null {
  try {
    check();
    return null;
  } catch (err) {
    if (err instanceof ValidationError) return err.message;
    throw err;
  }
}
const oneId =
  (what: string): Check =>
  (args) =>
    arity(args, 1, 1) ?? (isId(args[0]) ? null : `${what} must be a non-empty string`);
const oneObject =
  (what: string): Check =>
  (args) =>
    arity(args, 1, 1) ?? (isPlainObject(args[0]) ? null : `${what} must be an object`);

export const PAYLOAD_CHECKS: Record<ActionMethod, Check> = {
  getLogs: (args) => {
    const bad = arity(args, 1, 2);
    if (bad) return bad;
    const [limit, query] = args;
    if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > 5000) {
      return 'limit must be an integer from 1 to 5000';
    }
    if (query === undefined) return null;
    if (!isPlainObject(query)) return 'query must be an object';
    for (const [key, value] of Object.entries(query)) {
      const type = LOG_QUERY_FIELDS[key as keyof typeof LOG_QUERY_FIELDS];
      if (!type) return `query.${key} is not a log filter`;
      if (value !== undefined && typeof value !== type) return `query.${key} must be a ${type}`;
    }
    return null;
  },
  getLogDetail: (args) =>
    arity(args, 1, 1) ?? (Number.isSafeInteger(args[0]) ? null : 'log id must be an integer'),
  replayLog: (args) =>
    arity(args, 1, 2) ??
    (!Number.isSafeInteger(args[0])
      ? 'log id must be an integer'
      : args[1] === undefined || isId(args[1])
        ? null
        : 'target must be a non-empty string'),
  listProviders: none,
  saveProvider: oneObject('provider'),
  deleteProvider: oneId('provider id'),
  saveConnection: (args) =>
    arity(args, 2, 2) ??
    (!isId(args[0])
      ? 'provider id must be a non-empty string'
      : isPlainObject(args[1])
        ? null
        : 'connection must be an object'),
  deleteConnection: oneId('connection id'),
  testConnection: oneId('connection id'),
  listCombos: none,
  saveCombo: oneObject('combo'),
  deleteCombo: oneId('combo name'),
  listRules: none,
  saveRules: (args) => arity(args, 1, 1) ?? schemaProblem(() => validateRules(args[0], 'rules')),
  testRules: oneObject('request test'),
  claudeCodeRules: none,
  getSettings: none,
  updateSettings: oneObject('settings'),
  getWebSearch: none,
  saveWebSearch: (args) =>
    arity(args, 1, 1) ?? schemaProblem(() => validateWebSearch(args[0], 'webSearch')),
  deleteWebSearch: none,
  resetBreaker: (args) =>
    arity(args, 0, 1) ??
    (args[0] === undefined || isId(args[0]) ? null : 'provider must be a non-empty string'),
  clearConnectionState: oneId('connection id'),
  reenableModel: (args) => {
    const bad = arity(args, 1, 1);
    if (bad) return bad;
    const key = args[0];
    if (!isPlainObject(key)) return 'lockout key must be an object';
    for (const field of LOCKOUT_KEY_FIELDS) {
      if (!isId(key[field])) return `lockout key ${field} must be a non-empty string`;
    }
    return null;
  },
  clearLearnedFixes: (args) => {
    const bad = arity(args, 0, 1);
    if (bad || args[0] === undefined) return bad;
    const filter = args[0];
    if (!isPlainObject(filter)) return 'filter must be an object';
    for (const [key, value] of Object.entries(filter)) {
      if (key !== 'provider' && key !== 'model') return `filter.${key} is not a learnt-fix filter`;
      if (value !== undefined && !isId(value)) return `filter.${key} must be a non-empty string`;
    }
    return null;
  },
  releaseLease: oneId('connection id'),
  pause: none,
  resume: none,
  setGatewayAddress: oneObject('address'),
  getPresets: none,
  detectProviders: none,
  importConfig: (args) =>
    arity(args, 3, 3) ??
    (!isId(args[0])
      ? 'tool must be a non-empty string'
      : typeof args[1] !== 'string'
        ? 'text must be a string'
        : typeof args[2] === 'boolean'
          ? null
          : 'dryRun must be a boolean'),
  getUsage: (args) => {
    const bad = arity(args, 1, 1) ?? (isPlainObject(args[0]) ? null : 'query must be an object');
    if (bad) return bad;
    for (const [key, value] of Object.entries(args[0] as object)) {
      if (!['since', 'by', 'step'].includes(key)) return `query.${key} is not a usage filter`;
      if (value !== undefined && typeof value !== 'string') return `query.${key} must be a string`;
    }
    return null;
  },
  getSessionCache: none,
  listKeys: none,
  createKey: oneObject('key'),
  updateKey: (args) =>
    arity(args, 2, 2) ??
    (!isId(args[0])
      ? 'key id must be a non-empty string'
      : isPlainObject(args[1])
        ? null
        : 'key must be an object'),
  revokeKey: oneId('key id'),
  rotateKey: oneId('key id'),
  connectAgent: (args) =>
    arity(args, 1, 2) ??
    (!isId(args[0])
      ? 'agent must be a non-empty string'
      : args[1] === undefined || isPlainObject(args[1])
        ? null
        : 'input must be an object'),
  undoAgent: oneId('agent'),
};

export function isActionMethod(name: string): name is ActionMethod {
  return (ACTION_METHODS as readonly string[]).includes(name);
}

// ---------------------------------------------------------------------------
// Dispatch
// ---------------------------------------------------------------------------

export interface ActionContext {
  target(): TrustedTarget | null;
  engine(): Engine | null;
  startupError(): Promise<StartupError | null>;
}

/**
 * Runs one action for one sender: refuses a foreign sender or a malformed payload before
 * anything else, answers with the startup error when the gateway is not serving.
 */
export async function dispatchAction(
  ctx: ActionContext,
  method: ActionMethod,
  sender: SenderInfo,
  args: unknown[],
): Promise<BridgeResult<unknown>> {
  if (!isTrustedSender(sender, ctx.target())) return { ok: false, error: REFUSED_SENDER };
  const problem = PAYLOAD_CHECKS[method](args);
  if (problem) return { ok: false, error: `invalid ${method} payload: ${problem}` };
  const startup = await ctx.startupError();
  if (startup) return { ok: false, error: `the gateway is not serving: ${startup.message}` };
  const engine = ctx.engine();
  if (!engine) return { ok: false, error: 'the gateway engine is not running' };
  try {
    const fn = engine.actions[method] as (...a: unknown[]) => Promise<BridgeResult<unknown>>;
    return await fn(...args);
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
