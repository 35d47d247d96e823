// Body surgery for the request-shape repairs (issue 17): every edit a ShapeFix makes to a parsed
// request, in one place. Pure and copy-on-write: the input object is never changed (it may be
// the client's parsed request or a translation kept for other candidates), and only the objects
// along the edited path are copied.
import { EFFORT_LEVELS, type ShapeFix } from './fix';

type Json = Record<string, unknown>;

function obj(v: unknown): Json | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
}

/** The value at a dotted path, or undefined. */
export function valueAt(body: Json, path: string): unknown {
  let cur: unknown = body;
  for (const key of path.split('.')) {
    const o = obj(cur);
    if (!o || !Object.hasOwn(o, key)) return undefined;
    cur = o[key];
  }
  return cur;
}

/** A copy of `body` with the value at `path` replaced (`undefined` deletes it). */
function withValue(body: Json, path: string, value: unknown): Json {
  const [head, ...rest] = path.split('.') as [string, ...string[]];
  const out = { ...body };
  if (rest.length === 0) {
    if (value === undefined) delete out[head];
    else out[head] = value;
    return out;
  }
  const inner = obj(body[head]);
  if (!inner) return body;
  out[head] = withValue(inner, rest.join('.'), value);
  return out;
}

function levelIndex(level: string): number {
  return (EFFORT_LEVELS as readonly string[]).indexOf(level);
}

/** The accepted level nearest to `wanted`: the highest at or below it, else the lowest. */
export function nearestLevel(wanted: string, allowed: readonly string[]): string | null {
  if (allowed.length === 0) return null;
  const w = levelIndex(wanted);
  const ranked = [...allowed].sort((a, b) => levelIndex(a) - levelIndex(b));
  let best: string | null = null;
  for (const level of ranked) if (levelIndex(level) <= w) best = level;
  return best ?? ranked[0]!;
}

/** An applied fix: the new body and what changed, for the decision header. */
export interface Surgery {
  body: Json;
  note: string;
}

/** Applies one fix; null when it changes nothing in this body (the parameter is absent or fine). */
export function applyFix(body: Json, fix: ShapeFix): Surgery | null {
  if (fix.kind === 'maxTools') return null;
  const current = valueAt(body, fix.param);
  if (current === undefined) return null;
  switch (fix.kind) {
    case 'drop':
      return { body: withValue(body, fix.param, undefined), note: `dropped ${fix.param}` };
    case 'rename': {
      const moved = withValue(body, fix.param, undefined);
      if (valueAt(body, fix.to) !== undefined) return { body: moved, note: `dropped ${fix.param}` };
      return {
        body: withValue(moved, fix.to, current),
        note: `renamed ${fix.param} to ${fix.to}`,
      };
    }
    case 'range': {
      if (typeof current !== 'number') return null;
      let value = current;
      if (fix.max !== undefined) value = Math.min(value, fix.max);
      if (fix.min !== undefined) value = Math.max(value, fix.min);
      if (value === current) return null;
      return {
        body: withValue(body, fix.param, value),
        note: `clamped ${fix.param} from ${current} to ${value}`,
      };
    }
    case 'levels': {
      if (typeof current !== 'string' || fix.allowed.includes(current)) return null;
      const level = nearestLevel(current, fix.allowed);
      if (level === null || level === current) return null;
      return {
        body: withValue(body, fix.param, level),
        note: `lowered ${fix.param} from ${current} to ${level}`,
      };
    }
    case 'below': {
      const limit = valueAt(body, fix.than);
      if (typeof current !== 'number' || typeof limit !== 'number' || current < limit) return null;
      const value = limit - 1;
      if (value < 1) return null;
      return {
        body: withValue(body, fix.param, value),
        note: `lowered ${fix.param} from ${current} to ${value} (below ${fix.than})`,
      };
    }
  }
}

/** Applies fixes in order; the body is the input itself when none changed anything. */
export function applyFixes(body: Json, fixes: Iterable<ShapeFix>): { body: Json; notes: string[] } {
  let out = body;
  const notes: string[] = [];
  for (const fix of fixes) {
    const done = applyFix(out, fix);
    if (!done) continue;
    out = done.body;
    notes.push(done.note);
  }
  return { body: out, notes };
}
