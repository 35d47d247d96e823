/**
 * A header value built from request or config data (a model name, a connection id, an upstream
 * error message), safe to write: Node throws `ERR_INVALID_CHAR` on a character outside Latin-1
 * or a control character, after the upstream has served the request. Printable ASCII passes
 * as it is; anything else is percent-encoded as UTF-8, so `qwen-通义` reads `qwen-%E9%80%9A%E4%B9%89`.
 */
export function headerValue(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return encodeFrom(text, i);
  }
  return text;
}

function encodeFrom(text: string, from: number): string {
  let out = text.slice(0, from);
  for (const ch of text.slice(from)) {
    const c = ch.codePointAt(0) ?? 0;
    out += c >= 0x20 && c <= 0x7e ? ch : percentEncoded(ch);
  }
  return out;
}

function percentEncoded(ch: string): string {
  let out = '';
  // A lone surrogate has no UTF-8 form: Buffer encodes U+FFFD in its place.
  for (const byte of Buffer.from(ch, 'utf8'))
    out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

/** Whether a name (a `model`) has a control character: refused, since it can reach a header. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}
