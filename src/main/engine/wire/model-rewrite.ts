// Replaces the top-level "model" of a JSON request body in place, byte for byte, so a body
// that passes through (a combo or `provider/model` naming the upstream model differently) is
// not parsed into objects and serialised again. Everything but the model value keeps its bytes.
import {
  COLON,
  forEachMember,
  keyIs,
  LBRACE,
  QUOTE,
  skipWs,
  stringEnd,
  UNICODE_ESCAPE,
} from './json-members';

const MODEL = Buffer.from('"model"');
// Searched for instead of `"model"`: a needle starting with a quote stops at every JSON string.
const MODEL_TAIL = Buffer.from('model"');

/**
 * Returns `raw` with its top-level `"model"` string replaced by `model`, or null whenever the
 * byte-level edit could not be shown equivalent to `JSON.stringify({ ...JSON.parse(raw), model })`
 * (see `topLevelModelSpan`): the caller then re-serialises.
 */
export function rewriteTopLevelModel(
  raw: Buffer,
  model: string,
  /** The caller parsed `raw` already: a body that opens with its model may skip the scan. */
  knownValid = false,
): Buffer | null {
  const span = topLevelModelSpan(raw, knownValid);
  return span === null ? null : spliceModel(raw, span.start, span.end, model);
}

/**
 * Where the top-level `"model"` string of `raw` is (quotes included), or null whenever replacing
 * it byte for byte could not be shown equivalent to re-serialising (not an object, no top-level
 * model, a non-string model, the key given twice, malformed input). Nested `"model"` keys and
 * look-alikes inside strings are left alone.
 */
export function topLevelModelSpan(
  raw: Buffer,
  knownValid = false,
): { start: number; end: number } | null {
  const leading = knownValid ? leadingModel(raw) : null;
  if (leading) return leading;
  let start = -1;
  let end = -1;
  let unsure = false;
  const wellFormed = forEachMember(raw, (keyStart, keyEnd, valueStart, valueEnd) => {
    if (!keyIs(raw, keyStart, keyEnd, MODEL)) return;
    // With the key twice, JSON.parse keeps the last; leave that subtlety to re-serialising.
    if (start >= 0 || raw[valueStart] !== QUOTE) unsure = true;
    start = valueStart;
    end = valueEnd;
  });
  if (!wellFormed || unsure || start < 0) return null;
  return { start, end };
}

/** `raw` with the JSON string at [start, end) (quotes included) replaced by `model`. */
function spliceModel(raw: Buffer, start: number, end: number, model: string): Buffer {
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
  if (i + MODEL.length > raw.length) return null;
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
