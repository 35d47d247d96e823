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

/**
 * A request's facts, each computed on first use and kept. One object whose methods live on the
 * prototype: routing asks it of every request whose targets lack something, so it costs one
 * allocation, not a closure per fact.
 */
export function requestFacts(src: FactSources): RequestFacts {
  return new LazyFacts(src);
}

class LazyFacts implements RequestFacts {
  readonly model: string;
  readonly client: ClientFormat;
  readonly key: string | null;
  private thinks: boolean | undefined = undefined;
  private hasImages: boolean | undefined = undefined;
  private searches: boolean | undefined = undefined;
  private searchesByTool: boolean | undefined = undefined;
  private hasTools: boolean | undefined = undefined;
  private tokens: number | undefined = undefined;

  constructor(private readonly src: FactSources) {
    this.model = src.model;
    this.client = src.client;
    this.key = src.key;
  }

  thinking(): boolean {
    // The translators already read every format's way of asking for reasoning.
    this.thinks ??= this.src.mayReason !== false && this.src.ir().reasoning !== null;
    return this.thinks;
  }

  images(): boolean {
    this.hasImages ??= hasImage(this.src.ir());
    return this.hasImages;
  }

  webSearch(): boolean {
    if (this.searches === undefined) {
      const body = this.src.body();
      // Chat Completions asks for search with an option, not a tool.
      this.searches = body.web_search_options !== undefined || toolsOf(body).some(isWebSearchTool);
    }
    return this.searches;
  }

  webSearchByTool(): boolean {
    if (this.searchesByTool === undefined) {
      const body = this.src.body();
      this.searchesByTool =
        body.web_search_options === undefined && toolsOf(body).some(isWebSearchTool);
    }
    return this.searchesByTool;
  }

  tools(): boolean {
    this.hasTools ??= toolsOf(this.src.body()).length > 0;
    return this.hasTools;
  }

  inputTokens(): number {
    this.tokens ??= this.src.inputTokens();
    return this.tokens;
  }
}
