// Replaces the top-level "model" of a JSON request body in place, byte for byte, so a body
// that passes through (a combo or `provider/model` naming the upstream model differently) is
// not parsed into objects and serialised again. Everything but the model value keeps its bytes.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const MODEL = Buffer.from('"model"');
/** `"model"` spelled with every letter as `\uXXXX` is 32 bytes; no alias is longer. */
const MAX_ALIAS_BYTES = 2 + 5 * 6;
/** Strings shorter than this are scanned in JS; longer ones jump with the native indexOf. */
const SHORT_SCAN = 32;

function isWs(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipWs(b: Buffer, i: number): number {
  while (isWs(b[i])) i++;
  return i;
}

/** Index just past the string that opens at `i` (a quote), or -1 when it never closes. */
function stringEnd(b: Buffer, i: number): number {
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

/** Whether the key string at [start, end) (quotes included) decodes to `model`. */
function isModelKey(b: Buffer, start: number, end: number): boolean {
  const len = end - start;
  if (len === MODEL.length) return b.compare(MODEL, 0, len, start, end) === 0;
  if (len < MODEL.length || len > MAX_ALIAS_BYTES || b.indexOf(BACKSLASH, start) >= end) {
    return false;
  }
  // Escapes such as "mod\u0065l": JSON.parse would call it `model`, so must we.
  try {
    return JSON.parse(b.toString('utf8', start, end)) === 'model';
  } catch {
    return false;
  }
}

/**
 * Returns `raw` with its top-level `"model"` string replaced by `model`, or null whenever the
 * byte-level edit could not be shown equivalent to `JSON.stringify({ ...JSON.parse(raw), model })`
 * (not an object, no top-level model, a non-string model, the key given twice, malformed input):
 * the caller then re-serialises. Nested `"model"` keys and look-alikes inside strings are left
 * alone; key order and every other byte are kept.
 */
export function rewriteTopLevelModel(raw: Buffer, model: string): Buffer | null {
  let i = skipWs(raw, 0);
  if (raw[i] !== LBRACE) return null;
  i = skipWs(raw, i + 1);
  if (raw[i] === RBRACE) return null;
  let start = -1;
  let end = -1;
  for (;;) {
    if (raw[i] !== QUOTE) return null;
    const keyEnd = stringEnd(raw, i);
    if (keyEnd < 0) return null;
    const isModel = isModelKey(raw, i, keyEnd);
    i = skipWs(raw, keyEnd);
    if (raw[i] !== COLON) return null;
    const vStart = skipWs(raw, i + 1);
    const vEnd = valueEnd(raw, vStart);
    if (vEnd < 0) return null;
    if (isModel) {
      // With the key twice, JSON.parse keeps the last; leave that subtlety to re-serialising.
      if (start >= 0 || raw[vStart] !== QUOTE) return null;
      start = vStart;
      end = vEnd;
    }
    i = skipWs(raw, vEnd);
    if (raw[i] === COMMA) {
      i = skipWs(raw, i + 1);
      continue;
    }
    if (raw[i] !== RBRACE) return null;
    break;
  }
  if (start < 0 || skipWs(raw, i + 1) !== raw.length) return null;
  const value = Buffer.from(JSON.stringify(model), 'utf8');
  return Buffer.concat([raw.subarray(0, start), value, raw.subarray(end)]);
}
