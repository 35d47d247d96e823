// The desktop's admin actions, run in process: the same operations and answers as the HTTP admin
// API gives the browser (through admin-client.ts), without a loopback round trip.

import {
  type AdminActions,
  learnedFixSearchParams,
  logSearchParams,
} from '../../../shared/admin-client';
import type { BridgeResult, Snapshot } from '../../../shared/contract';
import { connectAgentOp, undoAgentOp } from './agents';
import {
  createKey,
  type KeyOperations,
  listKeys,
  revokeKey,
  rotateKey,
  updateKey,
  usageReport,
} from './keys';
import { clearLearnedFixes } from './learned-fixes';
import {
  AdminError,
  type AdminOperations,
  adminError,
  logId,
  recentLogs,
  releaseLease,
  replayLog,
  setGatewayAddress,
  setPaused,
  testConnection,
} from './operations';
import { detect, importConfig, presetList } from './setup';
import type { WebSearchAdmin } from './web-search';

export interface ActionDeps extends AdminOperations {
  accounts: KeyOperations;
  snapshot(): Snapshot;
}

/**
 * What the service sees is what an HTTP client could send: IPC's structured clone carries more
 * than JSON (undefined members, NaN, dates), and validation must not tell the two apart.
 */
function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/** The host's web search admin; every engine builds one, a bare test host may not. */
export function webSearchOf(ops: { webSearch?: WebSearchAdmin }): WebSearchAdmin {
  if (!ops.webSearch)
    throw new AdminError(503, 'unavailable', 'web search is not set up on this host');
  return ops.webSearch;
}

export function createAdminActions(deps: ActionDeps): AdminActions {
  const s = deps.service;
  async function run<T>(action: string, op: () => T | Promise<T>): Promise<BridgeResult<T>> {
    try {
      return { ok: true, data: await op() };
    } catch (err) {
      const e = adminError(err, deps.log, action);
      return { ok: false, error: e.message, ...(e.field ? { field: e.field } : {}), code: e.code };
    }
  }
  // A deletion answers null, as the HTTP client maps the route's `{deleted}`.
  const remove = (action: string, op: () => void) =>
    run(action, () => {
      op();
      return null;
    });

  return {
    getSnapshot: () => run('getSnapshot', () => deps.snapshot()),
    getLogs: (limit, query = {}) =>
      run('getLogs', () => recentLogs(s, logSearchParams(limit, query))),
    getLogDetail: (id) => run('getLogDetail', () => s.logDetail(logId(String(id)))),
    replayLog: (id, target) =>
      run('replayLog', () =>
        replayLog(deps, logId(String(id)), target === undefined ? {} : { target }),
      ),
    listProviders: () => run('listProviders', () => s.listProviders()),
    saveProvider: (input) => run('saveProvider', () => s.saveProvider(asJson(input))),
    deleteProvider: (id) => remove('deleteProvider', () => s.deleteProvider(id)),
    saveConnection: (provider, input) =>
      run('saveConnection', () => s.saveConnection(provider, asJson(input))),
    deleteConnection: (id) => remove('deleteConnection', () => s.deleteConnection(id)),
    testConnection: (id) => run('testConnection', () => testConnection(deps, id)),
    listCombos: () => run('listCombos', () => s.listCombos()),
    saveCombo: (input) => run('saveCombo', () => s.saveCombo(asJson(input))),
    deleteCombo: (name) => remove('deleteCombo', () => s.deleteCombo(name)),
    listRules: () => run('listRules', () => s.listRules()),
    saveRules: (rules) => run('saveRules', () => s.saveRules(asJson({ rules }))),
    testRules: (input) => run('testRules', () => s.testRules(asJson(input))),
    claudeCodeRules: () => run('claudeCodeRules', () => s.claudeCodeRules()),
    getSettings: () => run('getSettings', () => s.getSettings()),
    updateSettings: (values) => run('updateSettings', () => s.updateSettings(asJson(values))),
    getWebSearch: () => run('getWebSearch', () => webSearchOf(deps).view()),
    saveWebSearch: (input) => run('saveWebSearch', () => webSearchOf(deps).save(asJson(input))),
    deleteWebSearch: () => run('deleteWebSearch', () => webSearchOf(deps).remove()),
    resetBreaker: (provider) =>
      run('resetBreaker', () => s.resetBreakers(provider === undefined ? {} : { provider })),
    clearConnectionState: (connection) =>
      run('clearConnectionState', () => s.clearConnectionState({ connection })),
    reenableModel: ({ provider, connection, model }) =>
      run('reenableModel', () => s.clearLockout({ provider, connection, model })),
    clearLearnedFixes: (filter = {}) =>
      run('clearLearnedFixes', () =>
        clearLearnedFixes(deps.learnedFixes, learnedFixSearchParams(filter)),
      ),
    releaseLease: (connection) => run('releaseLease', () => releaseLease(deps, { connection })),
    pause: () => run('pause', () => setPaused(deps, true)),
    resume: () => run('resume', () => setPaused(deps, false)),
    setGatewayAddress: (input) =>
      run('setGatewayAddress', () => setGatewayAddress(deps, asJson(input))),
    getPresets: () => run('getPresets', () => presetList()),
    detectProviders: () => run('detectProviders', () => detect(deps)),
    importConfig: (tool, text, dryRun) =>
      run('importConfig', () => importConfig(deps, { tool, text, dryRun })),
    getUsage: (query) => run('getUsage', () => usageReport(deps.accounts, query)),
    getSessionCache: () => run('getSessionCache', () => deps.sessionCache?.() ?? []),
    listKeys: () => run('listKeys', () => listKeys(deps.accounts)),
    createKey: (input) => run('createKey', () => createKey(deps.accounts, asJson(input))),
    updateKey: (id, input) => run('updateKey', () => updateKey(deps.accounts, id, asJson(input))),
    revokeKey: (id) => remove('revokeKey', () => revokeKey(deps.accounts, id)),
    rotateKey: (id) => run('rotateKey', () => rotateKey(deps.accounts, id)),
    connectAgent: (agent, input) =>
      run('connectAgent', () => connectAgentOp(deps, agent, asJson(input ?? {}))),
    undoAgent: (agent) => run('undoAgent', () => undoAgentOp(deps, agent)),
  };
}
