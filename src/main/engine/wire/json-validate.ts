// Whether bytes are one JSON text, decided without building it. Accepts exactly what
// `JSON.parse(bytes.toString('utf8'))` accepts (RFC 8259; fast-check holds the two together).
// Bytes are enough: UTF-8 never hides an ASCII byte inside another character, and a byte the
// decoder would replace is as good as any other character inside a string and as bad outside.
// Used for large request bodies only (see the pipeline's parse stage). Strings, nearly all of
// an agent's body, are jumped over with native searches: on a 126 KB turn the scan takes about
// 40 µs, V8's JSON.parse of it 65 µs, and it builds nothing.

import { bytesAt, COLON, isWs, LBRACE, QUOTE, skipWs } from './json-members';

const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const NINE = 0x39;
/** Characters that may follow a backslash, besides `u`. */
const SIMPLE_ESCAPES = new Set([QUOTE, BACKSLASH, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const OBJECT = 1;
const ARRAY = 2;

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= ZERO && c <= NINE;
}

function isHex(c: number | undefined): boolean {
  return (
    c !== undefined &&
    ((c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66))
  );
}

/** Bytes that end a run of plain string content: the quote, the backslash, control characters. */
const STRING_STOP = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) STRING_STOP[c] = 1;
STRING_STOP[QUOTE] = 1;
STRING_STOP[BACKSLASH] = 1;

/** Index just past the string opening at `i`, or -1 when it is not a valid JSON string. */
function validStringEnd(b: Buffer, i: number): number {
  const n = b.length;
  let j = i + 1;
  while (j < n) {
    // One table load per plain byte: strings are nearly all of a request.
    while (j < n && STRING_STOP[b[j]!] === 0) j++;
    if (j >= n) return -1;
    const c = b[j]!;
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) {
      const e = escapeEnd(b, j);
      if (e < 0) return -1;
      j = e;
    } else if (c < 0x20) return -1;
    else j++;
  }
  return -1;
}

/** Index just past the escape whose backslash is at `j`, or -1 when it is not one JSON has. */
function escapeEnd(b: Buffer, j: number): number {
  const e = b[j + 1];
  if (e === 0x75) {
    return isHex(b[j + 2]) && isHex(b[j + 3]) && isHex(b[j + 4]) && isHex(b[j + 5]) ? j + 6 : -1;
  }
  return e !== undefined && SIMPLE_ESCAPES.has(e) ? j + 2 : -1;
}

/**
 * Whether `b` holds a control byte JSON allows nowhere (tab, line feed and carriage return are
 * whitespace between tokens). Agents' bodies hold none; then a string can only be broken by a
 * quote, a backslash, a tab, a line feed or a carriage return, and those the native `indexOf`
 * finds. Sixteen bytes at a time: a word has a byte below 0x20 exactly when
 * `(x - 0x20202020) & ~x & 0x80808080` is not 0 (a false alarm only next to such a byte).
 */
function hasStrayControl(b: Buffer): boolean {
  const start = (4 - (b.byteOffset & 3)) & 3;
  for (let i = 0; i < Math.min(start, b.length); i++) if (isStray(b[i]!)) return true;
  // Read as words only when there is a whole group: a view of no whole word could start past
  // the end of its memory.
  const groups = Math.max(0, (b.length - start) >> 4);
  if (groups > 0 && strayInGroups(b, start, groups)) return true;
  for (let i = start + groups * 16; i < b.length; i++) if (isStray(b[i]!)) return true;
  return false;
}

/** Whether one of `groups` groups of 16 bytes from `start` (word-aligned) holds a stray byte. */
function strayInGroups(b: Buffer, start: number, groups: number): boolean {
  // Int32: the arithmetic stays in 32-bit integers (a Uint32 above 2^31 would be a double).
  const u = new Int32Array(b.buffer, b.byteOffset + start, groups * 4);
  for (let w = 0; w < u.length; w += 4) {
    const a = u[w]!;
    const c = u[w + 1]!;
    const d = u[w + 2]!;
    const e = u[w + 3]!;
    const below =
      (((a - LOW) | 0) & ~a) |
      (((c - LOW) | 0) & ~c) |
      (((d - LOW) | 0) & ~d) |
      (((e - LOW) | 0) & ~e);
    if ((below & HIGH) === 0) continue;
    const at = start + w * 4;
    for (let i = at; i < at + 16; i++) if (isStray(b[i]!)) return true;
  }
  return false;
}

const LOW = 0x20202020;
const HIGH = 0x80808080 | 0;

function isStray(c: number): boolean {
  return c < 0x20 && c !== TAB && c !== LF && c !== CR;
}

/**
 * The next position of each byte that can end a string's plain run, from where the scan is on:
 * the scan only moves forward, so each is searched for once per occurrence (a strings-first walk
 * over a large body, some five times faster than a byte loop). `n` means none is left.
 */
class StringStops {
  quote = -1;
  backslash = -1;
  tab = -1;
  lf = -1;
  cr = -1;
  constructor(private readonly b: Buffer) {}

  /** Index just past the string opening at `i`, or -1; as `validStringEnd` for a body with no stray control byte. */
  end(i: number): number {
    const b = this.b;
    const n = b.length;
    let j = i + 1;
    for (;;) {
      if (this.quote < j) this.quote = find(b, QUOTE, j);
      if (this.quote >= n) return -1;
      if (this.backslash < j) this.backslash = find(b, BACKSLASH, j);
      const stop = Math.min(this.quote, this.backslash);
      if (this.tab < j) this.tab = find(b, TAB, j);
      if (this.lf < j) this.lf = find(b, LF, j);
      if (this.cr < j) this.cr = find(b, CR, j);
      if (this.tab < stop || this.lf < stop || this.cr < stop) return -1;
      if (stop === this.quote) return stop + 1;
      j = escapeEnd(b, stop);
      if (j < 0) return -1;
    }
  }
}

function find(b: Buffer, byte: number, from: number): number {
  const at = b.indexOf(byte, from);
  return at < 0 ? b.length : at;
}

/** Index just past the number starting at `i`, or -1 when none starts there. */
function validNumberEnd(b: Buffer, i: number): number {
  let j = i;
  if (b[j] === MINUS) j++;
  if (b[j] === ZERO) j++;
  else if (isDigit(b[j])) while (isDigit(b[j])) j++;
  else return -1;
  if (b[j] === DOT) {
    j++;
    if (!isDigit(b[j])) return -1;
    while (isDigit(b[j])) j++;
  }
  if (b[j] === 0x65 || b[j] === 0x45) {
    j++;
    if (b[j] === PLUS || b[j] === MINUS) j++;
    if (!isDigit(b[j])) return -1;
    while (isDigit(b[j])) j++;
  }
  return j;
}

/** A top-level member's key (quotes included) and value ranges, as `forEachMember` gives them. */
export type MemberVisit = (
  keyStart: number,
  keyEnd: number,
  valueStart: number,
  valueEnd: number,
) => void;

/**
 * Whether `b` is one JSON text. When it is an object, `visit` is called with each top-level
 * member along the way (also for a text that turns out invalid later: trust the ranges only when
 * this answers true), so that a caller needs no second pass to find them.
 */
export function isValidJson(b: Buffer, visit?: MemberVisit): boolean {
  // One loop with the key read in place: an agent's body is some 2 500 tokens between its
  // strings, and a closure call per token was most of the scan.
  const stops = hasStrayControl(b) ? null : new StringStops(b);
  const n = b.length;
  // Open containers, innermost last; depth is bounded by the body size limit only, as in V8.
  const open: number[] = [];
  // The top-level member being read, while `visit` wants them.
  let keyStart = -1;
  let keyEnd = -1;
  let valueStart = -1;
  let i = skipWs(b, 0);
  // Whether a key (and its colon) comes before the value at i.
  let key = false;
  for (;;) {
    if (key) {
      if (b[i] !== QUOTE) return false;
      const end = stops ? stops.end(i) : validStringEnd(b, i);
      if (end < 0) return false;
      const colon = skipWs(b, end);
      if (b[colon] !== COLON) return false;
      const j = skipWs(b, colon + 1);
      if (visit && open.length === 1) {
        keyStart = i;
        keyEnd = end;
        valueStart = j;
      }
      i = j;
      key = false;
    }
    // A value starts at i.
    const c = b[i];
    if (c === QUOTE) {
      i = stops ? stops.end(i) : validStringEnd(b, i);
      if (i < 0) return false;
    } else if (c === LBRACE || c === LBRACKET) {
      i = skipWs(b, i + 1);
      if (b[i] === (c === LBRACE ? RBRACE : RBRACKET)) i++;
      else {
        open.push(c === LBRACE ? OBJECT : ARRAY);
        key = c === LBRACE;
        continue;
      }
    } else if (c === MINUS || isDigit(c)) {
      i = validNumberEnd(b, i);
      if (i < 0) return false;
    } else {
      i = literalEnd(b, i);
      if (i < 0) return false;
    }
    // After a value: close what ends here; a comma leads to the next value.
    for (;;) {
      if (valueStart >= 0 && open.length === 1) {
        visit!(keyStart, keyEnd, valueStart, i);
        valueStart = -1;
      }
      // Inline here, where every value passes: as a call, 10 % of the scan.
      while (isWs(b[i])) i++;
      const inside = open[open.length - 1];
      if (inside === undefined) return i === n;
      const d = b[i];
      if (d === COMMA) {
        i = skipWs(b, i + 1);
        key = inside === OBJECT;
        break;
      }
      if (d !== (inside === OBJECT ? RBRACE : RBRACKET)) return false;
      open.pop();
      i++;
    }
  }
}

const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL = Buffer.from('null');

/** Index just past `true`, `false` or `null` starting at `i`, or -1 when none starts there. */
function literalEnd(b: Buffer, i: number): number {
  const c = b[i];
  const literal = c === 0x74 ? TRUE : c === 0x66 ? FALSE : c === 0x6e ? NULL : null;
  return literal && bytesAt(b, i, b.length, literal) ? i + literal.length : -1;
}
