// Applies an agent's plan to its files: a backup beside each file first (or a marker that the
// file did not exist), then the new text; undo puts the original bytes back. Synchronous: this
// runs from the CLI and the admin actions, never on a proxied request.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { AGENTS, type AgentId, type ConnectTarget } from './agents';

const BACKUP = '.breakwater-backup';
const CREATED = '.breakwater-created';

export interface ConnectResult {
  /** Files written (changed), in order. */
  written: string[];
  /** Files that already said what connect would write. */
  unchanged: string[];
  /** Copies of the files as they were before the first connect (made now or then): undo's source. */
  backups: string[];
}

/**
 * Points an agent at the gateway. Every file's new text is computed before any is written, so
 * a file the agent could not read refuses the whole connect and nothing changes. A second run
 * keeps the first backup: undo returns to the files as they were before Breakwater touched them.
 */
export function connectAgent(agent: AgentId, home: string, target: ConnectTarget): ConnectResult {
  const plans = AGENTS[agent].files(home, target).map((f) => {
    const before = existsSync(f.path) ? readFileSync(f.path, 'utf8') : null;
    return { path: f.path, before, after: f.edit(before) };
  });
  const result: ConnectResult = { written: [], unchanged: [], backups: [] };
  for (const p of plans) {
    if (p.before === p.after) {
      result.unchanged.push(p.path);
      continue;
    }
    mkdirSync(dirname(p.path), { recursive: true, mode: 0o700 });
    if (!existsSync(p.path + BACKUP) && !existsSync(p.path + CREATED)) {
      if (p.before === null) writeFileSync(p.path + CREATED, '', { mode: 0o600 });
      else writeFileSync(p.path + BACKUP, readFileSync(p.path), { mode: 0o600 });
    }
    // The file holds a gateway key: readable by its owner only when connect creates it.
    writeFileSync(p.path, p.after, { mode: 0o600 });
    result.written.push(p.path);
  }
  for (const p of plans) if (existsSync(p.path + BACKUP)) result.backups.push(p.path + BACKUP);
  return result;
}

export interface UndoResult {
  restored: string[];
  removed: string[];
}

/** Restores each of the agent's files from its backup, byte for byte, or removes it if connect created it. */
export function undoAgent(agent: AgentId, home: string): UndoResult {
  const result: UndoResult = { restored: [], removed: [] };
  // Which files an agent reads does not depend on the target.
  for (const f of AGENTS[agent].files(home, { origin: '', apiKey: '', models: [] })) {
    if (existsSync(f.path + BACKUP)) {
      renameSync(f.path + BACKUP, f.path);
      result.restored.push(f.path);
    } else if (existsSync(f.path + CREATED)) {
      rmSync(f.path, { force: true });
      rmSync(f.path + CREATED);
      result.removed.push(f.path);
    }
  }
  return result;
}
