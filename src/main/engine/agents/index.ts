// Agent config writers: `breakwater connect <agent> [--undo]` and the dashboard's Connect buttons.
export {
  AGENT_IDS,
  AGENTS,
  type AgentId,
  type AgentSpec,
  agentKey,
  type ConnectTarget,
  isAgentId,
} from './agents';
export { AgentConfigError } from './edits';
export { type ConnectResult, connectAgent, type UndoResult, undoAgent } from './files';
