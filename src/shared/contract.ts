// The one contract between the engine, its two hosts and the renderer.
// Types only: this module must stay free of runtime dependencies so the preload,
// the renderer and the engine can all import it.
// The parts, each in `contract/`, re-exported here as the one module everything imports.

export type * from './contract/agents';
export type * from './contract/bridge';
export type * from './contract/captures';
export type * from './contract/config';
export type * from './contract/events';
export type * from './contract/records';
export type * from './contract/state';
export type * from './contract/usage';
