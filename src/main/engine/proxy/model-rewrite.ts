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
// Searched for instead of `"model"`: a needle starting with a quote stops at every JSON string.
const MODEL_TAIL = Buffer.from('model"');
const UNICODE_ESCAPE = Buffer.from('\\u');
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

/** Whether [start, end) holds a backslash; a short range, so no native call (it would scan on). */
function hasBackslash(b: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (b[i] === BACKSLASH) return true;
  return false;
}

/** Whether the key string at [start, end) (quotes included) decodes to `model`. */
function isModelKey(b: Buffer, start: number, end: number): boolean {
  const len = end - start;
  if (len === MODEL.length) return b.compare(MODEL, 0, len, start, end) === 0;
  if (len < MODEL.length || len > MAX_ALIAS_BYTES || !hasBackslash(b, start, end)) return false;
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
export function rewriteTopLevelModel(
  raw: Buffer,
  model: string,
  /** The caller parsed `raw` already: a body that opens with its model may skip the scan. */
  knownValid = false,
): Buffer | null {
  const leading = knownValid ? leadingModel(raw) : null;
  if (leading) return splice(raw, leading.start, leading.end, model);
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
  return splice(raw, start, end, model);
}

function splice(raw: Buffer, start: number, end: number, model: string): Buffer {
  const value = Buffer.from(JSON.stringify(model), 'utf8');
  return Buffer.concat([raw.subarray(0, start), value, raw.subarray(end)]);
}

/**
 * The model value of a valid JSON object whose first key is a plain `"model"` string, when no
 * other key can be "model" too: `model"` occurs nowhere after it and no `\u` escape could spell
 * one. That is how SDKs and agents write requests, and it spares scanning the whole body.
 */
function leadingModel(raw: Buffer): { start: number; end: number } | null {
  let i = skipWs(raw, 0);
  if (raw[i] !== LBRACE) return null;
  i = skipWs(raw, i + 1);
  if (raw.compare(MODEL, 0, MODEL.length, i, i + MODEL.length) !== 0) return null;
  i = skipWs(raw, i + MODEL.length);
  if (raw[i] !== COLON) return null;
  const start = skipWs(raw, i + 1);
  if (raw[start] !== QUOTE) return null;
  const end = stringEnd(raw, start);
  if (end < 0) return null;
  if (raw.indexOf(MODEL_TAIL, end) !== -1 || raw.indexOf(UNICODE_ESCAPE) !== -1) return null;
  return { start, end };
}
