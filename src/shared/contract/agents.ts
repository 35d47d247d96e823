// Connecting a coding agent to this gateway (`POST /api/agents/{agent}/connect` and `/undo`,
// `breakwater connect <agent>`): the agent writes its own config files to point here.

export type AgentId = 'claude-code' | 'codex' | 'opencode' | 'qwen-code' | 'gemini-cli';

/** What the dashboard may choose; each is optional, as the CLI's `--key` and `--model`. */
export interface AgentConnectInput {
  /** The gateway key the agent presents; default `$BREAKWATER_API_KEY`, else a placeholder (a gateway without keys serves loopback clients whatever they present). */
  key?: string;
  /** The models to offer, the first the default; default the combos. */
  models?: string[];
}

/** What a connect did, in the user's home folder of the machine the gateway runs on. */
export interface AgentConnection {
  agent: AgentId;
  /** The gateway origin the agent now uses (`http://127.0.0.1:4141`). */
  baseUrl: string;
  models: string[];
  /** Files changed, in order. */
  written: string[];
  /** Files that already said what connect would write. */
  unchanged: string[];
  /** The copies of the files as they were before the first connect, which undo puts back. */
  backups: string[];
  /** Variables the agent reads only from the environment: lines for the shell profile. */
  env: Record<string, string>;
}

export interface AgentUndo {
  agent: AgentId;
  /** Files put back from their backup, byte for byte. */
  restored: string[];
  /** Files connect had created, removed. */
  removed: string[];
}
