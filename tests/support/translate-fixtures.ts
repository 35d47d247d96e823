// Helpers for the translation golden tests: fixtures in tests/fixtures/translate/ are real-shaped
// bodies and streams of each API; goldens in tests/fixtures/translate/golden/ are the reviewed
// translations. A missing golden is written; `UPDATE_GOLDEN=1 npx vitest run tests/unit/translate-`
// rewrites them all (then `npx biome format --write tests/fixtures` and review the diff).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import {
  createStreamTranslator,
  emitRequest,
  emitResponse,
  parseError,
  parseRequest,
  parseResponse,
} from '../../src/main/engine/translate';
import type { Json, WireFormat } from '../../src/main/engine/translate/ir';
import { SseDecoder } from '../../src/main/engine/translate/stream';
import { type ErrorKind, errorBody } from '../../src/main/engine/wire/client-errors';

export const FIXTURES = join(__dirname, '..', 'fixtures', 'translate');
export const NOW_MS = 1_750_000_000_000;
export const FORMATS: readonly WireFormat[] = ['anthropic', 'openai-chat', 'openai-responses'];

const SHORT: Record<WireFormat, string> = {
  anthropic: 'anthropic',
  'openai-chat': 'chat',
  'openai-responses': 'responses',
  gemini: 'gemini',
};

export function fixture<T = Json>(name: string): T {
  return JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as T;
}

export function requestCases(from: WireFormat): Record<string, Json> {
  return fixture(`request-${SHORT[from]}.json`);
}

export function goldenPath(kind: string, from: WireFormat, to: WireFormat, name = ''): string {
  return join(
    FIXTURES,
    'golden',
    `${kind}.${SHORT[from]}-to-${SHORT[to]}${name ? `.${name}` : ''}.json`,
  );
}

/** Compares with a golden file as JSON values, so the files can be formatted like the rest. */
export function expectGolden(actual: unknown, path: string): void {
  const value = JSON.parse(JSON.stringify(actual)) as unknown;
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, pretty(value));
    return;
  }
  expect(value).toEqual(JSON.parse(readFileSync(path, 'utf8')));
}

export const pretty = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;

export function translateRequest(from: WireFormat, to: WireFormat, body: Json) {
  const parsed = parseRequest(from, body);
  const emitted = emitRequest(to, parsed.value, to === 'openai-chat' ? 'openai-chat' : 'openai');
  return { body: emitted.value, dropped: [...new Set([...parsed.dropped, ...emitted.dropped])] };
}

/** The recorded upstream error of `from`'s API: its status and body. */
export function errorFixture(from: WireFormat): { status: number; body: unknown } {
  return fixture<Record<string, { status: number; body: unknown }>>('errors.json')[from]!;
}

export function responseFixture(from: WireFormat): Json {
  return fixture(`response-${SHORT[from]}.json`);
}

export function translateResponse(from: WireFormat, to: WireFormat, body: Json): Json {
  return emitResponse(to, parseResponse(from, body), { nowMs: NOW_MS });
}

export function streamFixture(from: WireFormat): string {
  return readFileSync(join(FIXTURES, `stream-${SHORT[from]}.sse`), 'utf8');
}

/** SSE text as a list of events (data parsed when it is JSON). */
export function sseEvents(text: string): { event: string | null; data: unknown }[] {
  const out: { event: string | null; data: unknown }[] = [];
  const d = new SseDecoder();
  const on = (event: string | null, data: string) => {
    let parsed: unknown = data;
    try {
      parsed = JSON.parse(data);
    } catch {
      // `[DONE]`
    }
    out.push({ event, data: parsed });
  };
  d.push(Buffer.from(text), on);
  d.end(on);
  return out;
}

/** Translates a whole SSE text, fed in `chunkSize`-byte pieces (Infinity: one piece). */
export function translateStream(
  from: WireFormat,
  to: WireFormat,
  sse: string,
  chunkSize = Number.POSITIVE_INFINITY,
): string {
  const t = createStreamTranslator(from, to, { nowMs: NOW_MS, includeUsage: true });
  const bytes = Buffer.from(sse);
  let out = '';
  const step = Math.min(chunkSize, bytes.length);
  for (let i = 0; i < bytes.length; i += step) out += t.push(bytes.subarray(i, i + step));
  return out + t.end();
}

export function translateError(from: WireFormat, to: WireFormat, status: number, body: unknown) {
  const err = parseError(from, status, body);
  if (!err) throw new Error('not an error body');
  return errorBody(to, {
    status,
    kind: err.kind as ErrorKind,
    code: err.code,
    message: err.message,
  });
}

export const others = (f: WireFormat): WireFormat[] => FORMATS.filter((x) => x !== f);

/**
 * The golden tests of one client format: each request case, the response and the stream, into
 * each other format; `more(to)` adds that format's own tests per target.
 */
export function goldenTranslations(from: WireFormat, more?: (to: WireFormat) => void): void {
  const cases = requestCases(from);
  for (const to of others(from)) {
    for (const [name, body] of Object.entries(cases)) {
      it(`request ${name} → ${to}`, () => {
        expectGolden(translateRequest(from, to, body), goldenPath('request', from, to, name));
      });
    }
    it(`response → ${to}`, () => {
      expectGolden(
        translateResponse(from, to, responseFixture(from)),
        goldenPath('response', from, to),
      );
    });
    it(`stream → ${to}`, () => {
      expectGolden(
        sseEvents(translateStream(from, to, streamFixture(from))),
        goldenPath('stream', from, to),
      );
    });
    more?.(to);
  }
}
