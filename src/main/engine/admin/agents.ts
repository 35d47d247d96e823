// The dashboard's Connect and Undo buttons: `POST /api/agents/{agent}/connect` and `/undo`, and
// the desktop's in-process actions. They run the writer `breakwater connect` runs, in the home
// folder of the machine the gateway runs on: only while the gateway listens on loopback, so
// that whoever holds the admin token is on this machine.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { homedir } from 'node:os';
import type { AgentConnectInput, AgentConnection, AgentUndo } from '../../../shared/contract';
import {
  AGENT_IDS,
  AGENTS,
  AgentConfigError,
  type AgentId,
  agentKey,
  connectAgent,
  isAgentId,
  undoAgent,
} from '../agents';
import { isLoopbackHost } from '../wire/guard';
import { sendJson } from '../wire/json-answer';
import { AdminError, type AdminOperations } from './operations';

const MAX_MODELS = 100;
const MAX_TEXT = 500;

function agentOf(agent: unknown): AgentId {
  if (typeof agent === 'string' && isAgentId(agent)) return agent;
  throw new AdminError(
    404,
    'not_found',
    `unknown agent ${JSON.stringify(agent)}; one of ${AGENT_IDS.join(', ')}`,
  );
}

/** Where the agent's files are, after checking that writing them is safe. */
function homeFor(ops: AdminOperations): string {
  const listening = ops.listening?.();
  if (!listening || !isLoopbackHost(listening.host)) {
    throw new AdminError(
      403,
      'not_loopback',
      `the gateway listens on ${listening?.host ?? 'an unknown address'}, not on loopback only: connecting an agent writes files in this machine's home folder, which is allowed only when every admin caller is on this machine; run \`breakwater connect <agent>\` on it instead`,
    );
  }
  return ops.env?.HOME || homedir();
}

function inputOf(raw: unknown): AgentConnectInput {
  const o = (raw ?? {}) as Record<string, unknown>;
  if (typeof o !== 'object' || Array.isArray(o))
    throw new AdminError(400, 'invalid_field', 'the body must be a JSON object');
  const text = (v: unknown) => typeof v === 'string' && v.trim() !== '' && v.length <= MAX_TEXT;
  if (o.key !== undefined && !text(o.key))
    throw new AdminError(400, 'invalid_field', 'key must be a non-empty string', 'key');
  if (
    o.models !== undefined &&
    !(Array.isArray(o.models) && o.models.length <= MAX_MODELS && o.models.every(text))
  )
    throw new AdminError(400, 'invalid_field', 'models must be a list of model names', 'models');
  return {
    ...(o.key !== undefined ? { key: (o.key as string).trim() } : {}),
    ...(o.models !== undefined ? { models: o.models as string[] } : {}),
  };
}

/** The CLI's defaults: the combos, else every model a client may name. */
function defaultModels(ops: AdminOperations): string[] {
  const combos = ops.service.listCombos().map((c) => c.name);
  if (combos.length > 0) return combos;
  return ops.service
    .listProviders()
    .filter((p) => p.enabled)
    .flatMap((p) => p.models.map((m) => `${p.id}/${m}`));
}

export function connectAgentOp(
  ops: AdminOperations,
  agent: unknown,
  raw: unknown,
): AgentConnection {
  const id = agentOf(agent);
  const input = inputOf(raw);
  const home = homeFor(ops);
  const origin = ops.listening!().baseUrl;
  const apiKey = agentKey(input.key, ops.env ?? {});
  const models = input.models ?? defaultModels(ops);
  const target = { origin, apiKey, models };
  try {
    const r = connectAgent(id, home, target, ops.env ?? {});
    ops.log.info(`agents: connected ${id} (${r.written.length} file(s) written)`);
    return { agent: id, baseUrl: origin, models, ...r, env: AGENTS[id].env?.(target) ?? {} };
  } catch (err) {
    if (err instanceof AgentConfigError)
      throw new AdminError(409, 'agent_config_refused', `${err.message}; nothing was changed`);
    throw err;
  }
}

export function undoAgentOp(ops: AdminOperations, agent: unknown): AgentUndo {
  const id = agentOf(agent);
  const r = undoAgent(id, homeFor(ops), ops.env ?? {});
  ops.log.info(`agents: undid ${id} (${r.restored.length + r.removed.length} file(s))`);
  return { agent: id, ...r };
}

/**
 * The agent routes, for the admin API's route table; `body` reads an optional JSON body, `param`
 * decodes a path parameter.
 */
export function agentRoutes(
  ops: AdminOperations,
  body: (req: IncomingMessage) => Promise<unknown>,
  param: (params: string[]) => string,
) {
  return [
    {
      method: 'POST',
      pattern: /^\/api\/agents\/([^/]+)\/connect$/,
      handler: async (q: IncomingMessage, r: ServerResponse, p: string[]) =>
        sendJson(r, 200, connectAgentOp(ops, param(p), await body(q))),
    },
    {
      method: 'POST',
      pattern: /^\/api\/agents\/([^/]+)\/undo$/,
      handler: (_q: IncomingMessage, r: ServerResponse, p: string[]) =>
        sendJson(r, 200, undoAgentOp(ops, param(p))),
    },
  ];
}
