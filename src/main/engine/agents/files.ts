// Applies an agent's plan to its files: a backup beside each file first (or a marker that the
// file did not exist), then the new text; undo takes connect's change out again. Synchronous:
// this runs from the CLI and the admin actions, never on a proxied request.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { AGENTS, type AgentId, type ConnectTarget } from './agents';
import { realTarget, writeAtomic } from './disk';
import { AgentConfigError } from './edits';

const BACKUP = '.breakwater-backup';
const CREATED = '.breakwater-created';
/** The hash of what connect last wrote: undo restores the backup's bytes only if it is unchanged. */
const WRITTEN = '.breakwater-written';

const hasControl = (s: string) =>
  [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
const hashOf = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');
const readOr = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : null);

export interface ConnectResult {
  /** Files written (changed), in order. */
  written: string[];
  /** Files that already said what connect would write. */
  unchanged: string[];
  /** Copies of the files as they were before the first connect (made now or then): undo's source. */
  backups: string[];
}

/**
 * The mode of the new file: as it was, unless the text holds the gateway key, when only its
 * owner may read it (agents with an env-reference form never put the key in the file).
 */
function modeFor(real: string, after: string, key: string): number {
  const holdsKey = key !== '' && after.includes(key);
  if (holdsKey || !existsSync(real)) return 0o600;
  return statSync(real).mode & 0o777;
}

/**
 * Points an agent at the gateway. Every file's new text is computed before any is written, so
 * a file the agent could not read refuses the whole connect and nothing changes. A second run
 * keeps the first backup: undo returns to the files as they were before Breakwater touched them.
 */
export function connectAgent(
  agent: AgentId,
  home: string,
  target: ConnectTarget,
  env: NodeJS.ProcessEnv = {},
): ConnectResult {
  // A line break in the key or address would become extra lines (variables) in an agent's file.
  if (hasControl(target.apiKey) || hasControl(target.origin))
    throw new AgentConfigError(
      'the gateway key or address has a line break or another control character',
    );
  const plans = AGENTS[agent].files(home, target, env).map((f) => {
    const real = realTarget(f.path);
    const before = readOr(real);
    return { path: f.path, real, before, after: f.edit(before) };
  });
  const result: ConnectResult = { written: [], unchanged: [], backups: [] };
  for (const p of plans) {
    if (p.before === p.after) {
      result.unchanged.push(p.path);
      continue;
    }
    mkdirSync(dirname(p.real), { recursive: true, mode: 0o700 });
    mkdirSync(dirname(p.path), { recursive: true, mode: 0o700 });
    if (!existsSync(p.path + BACKUP) && !existsSync(p.path + CREATED)) {
      if (p.before === null) writeAtomic(p.path + CREATED, '', 0o600);
      else writeAtomic(p.path + BACKUP, readFileSync(p.real), 0o600);
    }
    const mode = modeFor(p.real, p.after, target.apiKey);
    writeAtomic(p.real, p.after, mode);
    chmodSync(p.real, mode);
    writeAtomic(p.path + WRITTEN, hashOf(p.after), 0o600);
    result.written.push(p.path);
  }
  for (const p of plans) if (existsSync(p.path + BACKUP)) result.backups.push(p.path + BACKUP);
  return result;
}

export interface UndoResult {
  restored: string[];
  removed: string[];
}

/** Any target names every key connect may set; which files an agent reads does not depend on it. */
const ANY_TARGET: ConnectTarget = {
  origin: 'http://undo',
  apiKey: 'undo',
  models: ['undo'],
  statusLine: true,
};

/**
 * Takes connect's change out of each of the agent's files. A file as connect left it gets the
 * backup's bytes back (or goes, if connect created it); one edited since keeps those edits and
 * loses only connect's keys. Through a symlink the target is written and the link stays.
 */
export function undoAgent(agent: AgentId, home: string, env: NodeJS.ProcessEnv = {}): UndoResult {
  const result: UndoResult = { restored: [], removed: [] };
  for (const f of AGENTS[agent].files(home, ANY_TARGET, env)) {
    const hasBackup = existsSync(f.path + BACKUP);
    if (!hasBackup && !existsSync(f.path + CREATED)) continue;
    const original = hasBackup ? readFileSync(f.path + BACKUP) : null;
    const real = realTarget(f.path);
    const now = readOr(real);
    const untouched = now === null || readOr(f.path + WRITTEN) === hashOf(now);
    const next = untouched ? original : f.revert(now, original?.toString('utf8') ?? null);
    if (next === null) {
      rmSync(real, { force: true });
      result.removed.push(f.path);
    } else {
      writeAtomic(real, next, now === null ? 0o600 : statSync(real).mode & 0o777);
      result.restored.push(f.path);
    }
    for (const marker of [BACKUP, CREATED, WRITTEN]) rmSync(f.path + marker, { force: true });
  }
  return result;
}
