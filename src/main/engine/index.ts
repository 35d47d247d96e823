// The engine's one entry: what its hosts (the Electron shell and the headless CLI) may use.
// Everything else under engine/ is internal and may move without touching a host.

export type { AdminActions } from '../../shared/admin-client';
export { claudeCodeRuleSet } from './admin/setup';
export { adminTokenPath } from './admin/token';
export {
  AGENT_IDS,
  AGENTS,
  AgentConfigError,
  type AgentId,
  agentKey,
  connectAgent,
  isAgentId,
  undoAgent,
} from './agents';
export { loadConfigFile } from './config/load';
export { loadPresets } from './config/presets';
export { defaultDataDir } from './data-dir';
export {
  createEngine,
  DEFAULT_HOST,
  DEFAULT_PORT,
  type Engine,
  type EngineOptions,
  type ListenInfo,
} from './engine';
export { draftReport, IMPORTERS, ImportError, isImportTool } from './import';
export { createStderrLogger, type Logger, type LogLevel, redactSecrets } from './logger';
export type { HostNetworkEvent } from './resilience/health';
export { detectProviders } from './setup/detect';
export { configFromDetected } from './setup/first-config';
export type { SecretCodec } from './store';
export { VERSION } from './version';
