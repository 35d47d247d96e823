// Whether bytes are one JSON text, decided without building it. Accepts exactly what
// `JSON.parse(bytes.toString('utf8'))` accepts (RFC 8259; fast-check holds the two together).
// Bytes are enough: UTF-8 never hides an ASCII byte inside another character, and a byte the
// decoder would replace is as good as any other character inside a string and as bad outside.
// Used for large request bodies only (see the pipeline's parse stage): below ~100 KB V8's
// JSON.parse is three times faster than this scan.

import { COLON, LBRACE, QUOTE, skipWs } from './json-members';

const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LITERALS = new Map<number, Buffer>([
  [0x74, Buffer.from('true')],
  [0x66, Buffer.from('false')],
  [0x6e, Buffer.from('null')],
]);
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
      const e = b[j + 1];
      if (e === 0x75) {
        if (!(isHex(b[j + 2]) && isHex(b[j + 3]) && isHex(b[j + 4]) && isHex(b[j + 5]))) return -1;
        j += 6;
      } else if (e !== undefined && SIMPLE_ESCAPES.has(e)) j += 2;
      else return -1;
    } else if (c < 0x20) return -1;
    else j++;
  }
  return -1;
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

/** Index of the value after an object key and its colon at `i` (a quote expected), or -1. */
function afterKey(b: Buffer, i: number): number {
  if (b[i] !== QUOTE) return -1;
  const end = validStringEnd(b, i);
  if (end < 0) return -1;
  const colon = skipWs(b, end);
  return b[colon] === COLON ? skipWs(b, colon + 1) : -1;
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
  const n = b.length;
  // Open containers, innermost last; depth is bounded by the body size limit only, as in V8.
  const open: number[] = [];
  // The top-level member being read, while `visit` wants them.
  let keyStart = -1;
  let valueStart = -1;
  let i = skipWs(b, 0);
  for (;;) {
    // A value starts at i.
    const c = b[i];
    if (c === LBRACE || c === LBRACKET) {
      const close = c === LBRACE ? RBRACE : RBRACKET;
      i = skipWs(b, i + 1);
      if (b[i] === close) i++;
      else {
        open.push(c === LBRACE ? OBJECT : ARRAY);
        if (c === LBRACE) {
          const k = i;
          i = afterKey(b, i);
          if (i < 0) return false;
          if (visit && open.length === 1) {
            keyStart = k;
            valueStart = i;
          }
        }
        continue;
      }
    } else if (c === QUOTE) {
      i = validStringEnd(b, i);
      if (i < 0) return false;
    } else if (c === MINUS || isDigit(c)) {
      i = validNumberEnd(b, i);
      if (i < 0) return false;
    } else {
      const literal = c === undefined ? undefined : LITERALS.get(c);
      const end = i + (literal?.length ?? 0);
      if (!literal || end > n || b.compare(literal, 0, literal.length, i, end) !== 0) {
        return false;
      }
      i = end;
    }
    // After a value: close what ends here; a comma leads to the next value.
    for (;;) {
      if (valueStart >= 0 && open.length === 1) {
        // A member of the top-level object ends here; its key is a few bytes, found again.
        visit!(keyStart, validStringEnd(b, keyStart), valueStart, i);
        valueStart = -1;
      }
      i = skipWs(b, i);
      const inside = open[open.length - 1];
      if (inside === undefined) return i === n;
      const d = b[i];
      if (d === COMMA) {
        i = skipWs(b, i + 1);
        if (inside === OBJECT) {
          const k = i;
          i = afterKey(b, i);
          if (i < 0) return false;
          if (visit && open.length === 1) {
            keyStart = k;
            valueStart = i;
          }
        }
        break;
      }
      if (d !== (inside === OBJECT ? RBRACE : RBRACKET)) return false;
      open.pop();
      i++;
    }
  }
}
