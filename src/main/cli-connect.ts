// `breakwater connect <agent>`: points an agent's own config files at a running gateway.
import { homedir } from 'node:os';
import { parseArgs } from 'node:util';
import { CliError } from './cli-accounts';
import {
  AGENT_IDS,
  AGENTS,
  AgentConfigError,
  agentKey,
  connectAgent,
  DEFAULT_HOST,
  DEFAULT_PORT,
  isAgentId,
  undoAgent,
} from './engine/index';

/** The combos a running gateway offers (`GET /v1/models`), the models an agent is given. */
async function combosAt(origin: string, key: string): Promise<string[]> {
  let res: Response;
  try {
    res = await fetch(`${origin}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  } catch {
    throw new CliError(
      `no Breakwater answering at ${origin}: start it, pass --url, or name models with --model`,
    );
  }
  if (!res.ok)
    throw new CliError(`${origin}/v1/models answered HTTP ${res.status} (pass --key, or --model)`);
  const list = (await res.json()) as { data: { id: string; owned_by: string }[] };
  const combos = list.data.filter((m) => m.owned_by === 'breakwater-combo').map((m) => m.id);
  return combos.length > 0 ? combos : list.data.map((m) => m.id);
}

/** Points an agent's own config files at this gateway; `--undo` puts them back byte for byte. */
export async function connect(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      undo: { type: 'boolean', default: false },
      statusline: { type: 'boolean', default: false },
      url: { type: 'string' },
      key: { type: 'string' },
      model: { type: 'string', multiple: true },
    },
    allowPositionals: true,
    strict: true,
  });
  const agent = positionals[0] ?? '';
  if (!isAgentId(agent) || positionals.length > 1) {
    throw new CliError(
      `usage: breakwater connect <${AGENT_IDS.join('|')}> [--url URL] [--key KEY] [--model NAME]... [--statusline] [--undo]`,
    );
  }
  const say = (verb: string, paths: string[]) => {
    for (const p of paths) process.stdout.write(`  ${verb} ${p}\n`);
  };
  if (values.undo) {
    const r = undoAgent(agent, homedir(), process.env);
    if (r.restored.length + r.removed.length === 0)
      process.stdout.write(`${agent}: nothing to undo\n`);
    say('restored', r.restored);
    say('removed', r.removed);
    return;
  }
  const origin = (values.url ?? `http://${DEFAULT_HOST}:${DEFAULT_PORT}`).replace(/\/+$/, '');
  const apiKey = agentKey(values.key, process.env);
  const models = values.model ?? (await combosAt(origin, apiKey));
  const statusLine = agent === 'claude-code' && values.statusline;
  try {
    const r = connectAgent(agent, homedir(), { origin, apiKey, models, statusLine }, process.env);
    say('wrote', r.written);
    say('unchanged', r.unchanged);
    say('backup', r.backups);
    const env = AGENTS[agent].env?.({ origin, apiKey, models }) ?? {};
    if (Object.keys(env).length > 0) {
      process.stdout.write(
        `${agent} reads these only from the environment; add them to your shell profile:\n`,
      );
      for (const [k, v] of Object.entries(env)) process.stdout.write(`  export ${k}=${v}\n`);
    }
    process.stdout.write(
      `${agent} now uses ${origin} with model ${models[0] ?? '(its default)'}; undo with: breakwater connect ${agent} --undo\n`,
    );
    if (agent === 'claude-code' && !statusLine)
      process.stdout.write(
        "to show the session's target and cost in its status line, run it again with --statusline\n",
      );
  } catch (err) {
    if (err instanceof AgentConfigError) throw new CliError(`${err.message}; nothing was changed`);
    throw err;
  }
}
