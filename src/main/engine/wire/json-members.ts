// The top-level members of a JSON object, found in its bytes: the model rewrite edits one of
// them and usage accounting reads one, and neither needs the whole document turned into
// objects. Strings are jumped over with the native indexOf, so long prompts and answers cost
// little; nested values are delimited, not validated.

export const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
export const COLON = 0x3a;
export const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
/** `\u`: the one JSON escape that can spell a letter, so a key the bytes do not show. */
export const UNICODE_ESCAPE = Buffer.from('\\u');
/** Strings shorter than this are scanned in JS; longer ones jump with the native indexOf. */
const SHORT_SCAN = 32;

export function isWs(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

export function skipWs(b: Buffer, i: number): number {
  while (isWs(b[i])) i++;
  return i;
}

/** Index just past the string that opens at `i` (a quote), or -1 when it never closes. */
export function stringEnd(b: Buffer, i: number): number {
  let j = i + 1;
  const shortEnd = Math.min(b.length, j + SHORT_SCAN);
  for (; j < shortEnd; j++) {
    const c = b[j];
    if (c === BACKSLASH) j++;
    else if (c === QUOTE) return j + 1;
  }
  for (;;) {
    const q = b.indexOf(QUOTE, j);
    if (q < 0) return -1;
    let k = q - 1;
    while (b[k] === BACKSLASH) k--;
    // An even run of backslashes escapes itself, not the quote.
    if ((q - 1 - k) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** Index just past the value that starts at `i`, or -1 when the input ends first. */
function valueEnd(b: Buffer, i: number): number {
  const c = b[i];
  if (c === QUOTE) return stringEnd(b, i);
  if (c === LBRACE || c === LBRACKET) {
    let depth = 0;
    let j = i;
    while (j < b.length) {
      const d = b[j];
      if (d === QUOTE) {
        j = stringEnd(b, j);
        if (j < 0) return -1;
        continue;
      }
      if (d === LBRACE || d === LBRACKET) depth++;
      else if (d === RBRACE || d === RBRACKET) {
        depth--;
        if (depth === 0) return j + 1;
      }
      j++;
    }
    return -1;
  }
  // A number, true, false or null: runs until a delimiter.
  let j = i;
  while (j < b.length) {
    const d = b[j];
    if (d === COMMA || d === RBRACE || d === RBRACKET || isWs(d)) break;
    j++;
  }
  return j > i ? j : -1;
}

/**
 * Calls `visit` with the range of each element of the array that opens at `start`, in order,
 * until it returns false. False when the array is malformed.
 */
export function forEachElement(
  b: Buffer,
  start: number,
  visit: (elementStart: number, elementEnd: number) => boolean,
): boolean {
  if (b[start] !== LBRACKET) return false;
  let i = skipWs(b, start + 1);
  if (b[i] === RBRACKET) return true;
  for (;;) {
    const end = valueEnd(b, i);
    if (end < 0) return false;
    if (!visit(i, end)) return true;
    i = skipWs(b, end);
    if (b[i] === COMMA) {
      i = skipWs(b, i + 1);
      continue;
    }
    return b[i] === RBRACKET;
  }
}

/** Whether [start, end) holds a backslash; a short range, so no native call (it would scan on). */
function hasBackslash(b: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (b[i] === BACKSLASH) return true;
  return false;
}

/**
 * The index of the last newline in `buf`, or -1. A stream's chunks nearly always end with one:
 * looked at first, as a native search costs a call into C++ per chunk.
 */
export function lastNewline(buf: Buffer): number {
  const n = buf.length;
  return n > 0 && buf[n - 1] === 0x0a ? n - 1 : buf.lastIndexOf(0x0a);
}

/** Whether `expected` is at `pos`, before `end`; compared inline, as a native call costs more. */
export function bytesAt(buf: Buffer, pos: number, end: number, expected: Buffer): boolean {
  if (pos + expected.length > end) return false;
  for (let i = 0; i < expected.length; i++) if (buf[pos + i] !== expected[i]) return false;
  return true;
}

/**
 * Whether the key string at [start, end) (quotes included) decodes to `quoted` (a key with its
 * quotes, e.g. `"model"`), also when written with escapes such as `"mod\u0065l"`: JSON.parse
 * would read it as that key, so must we.
 */
export function keyIs(b: Buffer, start: number, end: number, quoted: Buffer): boolean {
  const len = end - start;
  if (len === quoted.length) return b.compare(quoted, 0, len, start, end) === 0;
  // Every letter as `\uXXXX` is the longest spelling.
  const longest = 2 + (quoted.length - 2) * 6;
  if (len < quoted.length || len > longest || !hasBackslash(b, start, end)) return false;
  try {
    return (
      JSON.parse(b.toString('utf8', start, end)) === quoted.toString('utf8', 1, quoted.length - 1)
    );
  } catch {
    return false;
  }
}

/**
 * The value range of the member `quoted` (a key with its quotes) when it is the last member of
 * the object in `raw`, found from the end: an answer's usage usually is, and then the members
 * before it are not walked. Null when it is not last (or not there); the caller then walks them.
 * The key's opening quote must not be escaped, and only whitespace and the object's closing
 * brace may follow its value: then, in any JSON text, it is a key of the outermost object.
 */
export function lastMember(raw: Buffer, quoted: Buffer): [number, number] | null {
  const at = raw.lastIndexOf(quoted);
  if (at <= 0) return null;
  let backslashes = 0;
  while (raw[at - 1 - backslashes] === BACKSLASH) backslashes++;
  if (backslashes % 2 === 1) return null;
  const colon = skipWs(raw, at + quoted.length);
  if (raw[colon] !== COLON) return null;
  const start = skipWs(raw, colon + 1);
  const end = valueEnd(raw, start);
  if (end < 0) return null;
  const close = skipWs(raw, end);
  if (raw[close] !== RBRACE || skipWs(raw, close + 1) !== raw.length) return null;
  return raw[skipWs(raw, 0)] === LBRACE ? [start, end] : null;
}

/**
 * Calls `visit` with the key and value ranges of each top-level member of the object in `raw`,
 * in order. False when `raw` is not an object, its top level is malformed, or bytes follow it.
 */
export function forEachMember(
  raw: Buffer,
  visit: (keyStart: number, keyEnd: number, valueStart: number, valueEnd: number) => void,
): boolean {
  let i = skipWs(raw, 0);
  if (raw[i] !== LBRACE) return false;
  i = skipWs(raw, i + 1);
  if (raw[i] === RBRACE) return skipWs(raw, i + 1) === raw.length;
  for (;;) {
    if (raw[i] !== QUOTE) return false;
    const keyEnd = stringEnd(raw, i);
    if (keyEnd < 0) return false;
    const keyStart = i;
    i = skipWs(raw, keyEnd);
    if (raw[i] !== COLON) return false;
    const vStart = skipWs(raw, i + 1);
    const vEnd = valueEnd(raw, vStart);
    if (vEnd < 0) return false;
    visit(keyStart, keyEnd, vStart, vEnd);
    i = skipWs(raw, vEnd);
    if (raw[i] === COMMA) {
      i = skipWs(raw, i + 1);
      continue;
    }
    if (raw[i] !== RBRACE) return false;
    return skipWs(raw, i + 1) === raw.length;
  }
}
