// What a provider's 400 about a request's shape teaches (issue 17): the fix, as a value, and the
// error text it is read from. The decisions are param-learning.ts and effort-clamp.ts; the body
// edits are request-surgery.ts.
import type { ShapeMechanism } from '../../../../shared/contract';

/**
 * One change to a request body, addressed by a dotted path (`temperature`,
 * `thinking.budget_tokens`, `reasoning.effort`). Clamps keep the bound rather than a value, so a
 * later request that already asks for less is sent as it is.
 */
export type ShapeFix =
  | { kind: 'drop'; mechanism: ShapeMechanism; param: string }
  | { kind: 'rename'; mechanism: ShapeMechanism; param: string; to: string }
  | { kind: 'range'; mechanism: ShapeMechanism; param: string; min?: number; max?: number }
  /** Effort levels the model accepts; others move to the nearest below, else the lowest. */
  | { kind: 'levels'; mechanism: ShapeMechanism; param: string; allowed: string[] }
  /** The number at `param` must stay below the top-level number `than` (a thinking budget). */
  | { kind: 'below'; mechanism: ShapeMechanism; param: string; than: string }
  /** Not an edit: the provider takes at most `max` tools (requests with more go elsewhere). */
  | { kind: 'maxTools'; mechanism: ShapeMechanism; param: string; max: number };

/** Effort levels from least to most, across the APIs (`none` only where a model has it). */
export const EFFORT_LEVELS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

/** The parts of an upstream error body the rules read. */
export interface ErrorText {
  message: string;
  /** The parameter the error names in a field of its own (OpenAI's `param`, a validation `loc`). */
  param: string | null;
  code: string | null;
}

type Json = Record<string, unknown>;

function obj(v: unknown): Json | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** A FastAPI/pydantic `detail` list (vLLM, Mistral and others): its first entry. */
function detailOf(v: unknown): ErrorText | null {
  const first = Array.isArray(v) ? obj(v[0]) : null;
  if (!first) return null;
  const loc = Array.isArray(first.loc) ? first.loc.filter((x) => x !== 'body') : [];
  const param = loc.length > 0 ? loc.map(String).join('.') : null;
  const msg = str(first.msg) ?? '';
  return { message: param ? `${param}: ${msg}` : msg, param, code: str(first.type) };
}

/** Reads the message, parameter and code of an error body in any of the APIs' shapes. */
export function readErrorText(body: string): ErrorText {
  let parsed: Json | null = null;
  try {
    parsed = obj(JSON.parse(body));
  } catch {
    return { message: body.slice(0, 2000), param: null, code: null };
  }
  const err = obj(parsed?.error) ?? parsed;
  if (!err) return { message: body.slice(0, 2000), param: null, code: null };
  const detail = detailOf(err.detail) ?? detailOf(obj(err.message)?.detail);
  if (detail) return detail;
  const message = str(err.message) ?? str(parsed?.error) ?? str(parsed?.message) ?? body;
  const code = err.code;
  return {
    message: message.slice(0, 2000),
    param: str(err.param),
    code: typeof code === 'string' ? code : typeof err.type === 'string' ? err.type : null,
  };
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** A fix read back from storage, or null when it is not one (an older or corrupt row). */
export function restoreFix(v: unknown): ShapeFix | null {
  const f = obj(v);
  if (!f || typeof f.param !== 'string') return null;
  const mechanism =
    f.mechanism === 'effort' || f.mechanism === 'tool_limit' ? f.mechanism : 'parameter';
  const param = f.param;
  switch (f.kind) {
    case 'drop':
      return { kind: 'drop', mechanism, param };
    case 'rename':
      return typeof f.to === 'string' ? { kind: 'rename', mechanism, param, to: f.to } : null;
    case 'range': {
      const min = typeof f.min === 'number' ? f.min : undefined;
      const max = typeof f.max === 'number' ? f.max : undefined;
      if (min === undefined && max === undefined) return null;
      return {
        kind: 'range',
        mechanism,
        param,
        ...(min !== undefined ? { min } : {}),
        ...(max !== undefined ? { max } : {}),
      };
    }
    case 'levels':
      return isStringArray(f.allowed) && f.allowed.length > 0
        ? { kind: 'levels', mechanism, param, allowed: f.allowed }
        : null;
    case 'below':
      return typeof f.than === 'string' ? { kind: 'below', mechanism, param, than: f.than } : null;
    case 'maxTools':
      return typeof f.max === 'number' && f.max >= 0
        ? { kind: 'maxTools', mechanism, param, max: f.max }
        : null;
    default:
      return null;
  }
}

/** What a fix does, in the words of the dashboard and the decision header. */
export function describeFix(fix: ShapeFix): string {
  switch (fix.kind) {
    case 'drop':
      return `drop ${fix.param}`;
    case 'rename':
      return `rename ${fix.param} to ${fix.to}`;
    case 'range':
      return `clamp ${fix.param} to ${fix.min ?? '…'}..${fix.max ?? '…'}`;
    case 'levels':
      return `${fix.param} one of ${fix.allowed.join(', ')}`;
    case 'below':
      return `keep ${fix.param} below ${fix.than}`;
    case 'maxTools':
      return `at most ${fix.max} tools`;
  }
}
