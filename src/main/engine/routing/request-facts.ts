import type { ClientFormat } from '../../../shared/contract';
import type { IrRequest } from '../translate/ir';
import type { RequestFacts } from './rules';

/** Where the facts come from: the body and its parse are the request's own, shared, lazy. */
export interface FactSources {
  model: string;
  client: ClientFormat;
  key: string | null;
  body(): Record<string, unknown>;
  ir(): IrRequest;
  /** False when the body has no member any format asks for reasoning with (no IR needed). */
  mayReason?: boolean;
  inputTokens(): number;
}

/** Anthropic `web_search_20250305`, Responses `web_search` / `web_search_preview`. */
function isWebSearchTool(tool: unknown): boolean {
  if (typeof tool !== 'object' || tool === null) return false;
  const t = tool as Record<string, unknown>;
  if (typeof t.type === 'string' && t.type.startsWith('web_search')) return true;
  // Gemini's search grounding.
  return (
    t.googleSearch !== undefined ||
    t.google_search !== undefined ||
    t.googleSearchRetrieval !== undefined
  );
}

function toolsOf(body: Record<string, unknown>): readonly unknown[] {
  return Array.isArray(body.tools) ? body.tools : [];
}

function hasImage(ir: IrRequest): boolean {
  for (const m of ir.messages) {
    for (const p of m.parts) {
      if (p.type === 'image') return true;
      if (p.type === 'tool_result' && p.content.some((c) => c.type === 'image')) return true;
    }
  }
  return false;
}

/** A request's facts, each computed on first use and kept. */
export function requestFacts(src: FactSources): RequestFacts {
  const memo = <T>(compute: () => T): (() => T) => {
    let done = false;
    let value: T;
    return () => {
      if (!done) {
        value = compute();
        done = true;
      }
      return value;
    };
  };
  return {
    model: src.model,
    client: src.client,
    key: src.key,
    // The translators already read every format's way of asking for reasoning.
    thinking: memo(() => src.mayReason !== false && src.ir().reasoning !== null),
    images: memo(() => hasImage(src.ir())),
    webSearch: memo(() => {
      const body = src.body();
      // Chat Completions asks for search with an option, not a tool.
      return body.web_search_options !== undefined || toolsOf(body).some(isWebSearchTool);
    }),
    webSearchByTool: memo(() => {
      const body = src.body();
      return body.web_search_options === undefined && toolsOf(body).some(isWebSearchTool);
    }),
    tools: memo(() => toolsOf(src.body()).length > 0),
    inputTokens: memo(() => src.inputTokens()),
  };
}
