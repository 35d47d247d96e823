// The server-side search loop, run by the gateway for a provider that cannot run the client's
// search tool: the model is offered a function `web_search({query})`; each call it makes is run
// on the backend and answered as the tool's result, until it answers without one.
import {
  emptyUsage,
  type IrMessage,
  type IrRequest,
  type IrResponse,
  type IrToolCall,
  type IrUsage,
  type IrWebSearch,
} from '../translate/ir';
import type { SearchTool } from './detect';
import type { SearchAsk } from './service';
import type { SearchOutcome } from './types';

export const SEARCH_FUNCTION = 'web_search';
const MAX_QUERY = 500;

const FUNCTION_TOOL = {
  name: SEARCH_FUNCTION,
  description:
    'Search the web. Returns the title, URL and an excerpt of the top results. Use it for current events and facts you are not sure of; cite the URLs you use.',
  parameters: {
    type: 'object',
    properties: { query: { type: 'string', description: 'The search query' } },
    required: ['query'],
  },
};

export type CallAnswer<E> = { ok: true; response: IrResponse } | { ok: false; error: E };

export interface EmulationIo<E> {
  /** One model call (non-streaming) with the conversation so far. */
  call(ir: IrRequest): Promise<CallAnswer<E>>;
  search(ask: SearchAsk): Promise<SearchOutcome>;
  /** What the model said before a search, or a search that is done: a streaming client sees it now. */
  shown(item: Shown): void;
  /** Ids of `server_tool_use` blocks (`srvtoolu_…`). */
  newId(): string;
}

/** What the client is shown before the answer, in order: the model's words and its searches. */
export type Shown = { type: 'text'; text: string } | { type: 'web_search'; search: IrWebSearch };

export type Emulated<E> =
  | { ok: true; final: IrResponse; shown: Shown[] }
  | { ok: false; error: E; shown: Shown[] };

export function searchesOf(shown: readonly Shown[]): IrWebSearch[] {
  return shown.flatMap((s) => (s.type === 'web_search' ? [s.search] : []));
}

function queryOf(call: IrToolCall): string | null {
  try {
    const q = (JSON.parse(call.arguments) as { query?: unknown } | null)?.query;
    return typeof q === 'string' && q.trim() !== '' ? q.trim().slice(0, MAX_QUERY) : null;
  } catch {
    return null;
  }
}

/** What the model reads as the tool's result. */
export function resultForModel(s: IrWebSearch): string {
  if (s.error) return s.error.message;
  if (s.results.length === 0) return `No results for "${s.query}".`;
  const lines = s.results.map(
    (r, i) =>
      `${i + 1}. ${r.title}\n   ${r.url}${r.pageAge ? ` (${r.pageAge})` : ''}\n   ${r.snippet}`,
  );
  return `Results for "${s.query}":\n${lines.join('\n')}`;
}

function addUsage(into: IrUsage, u: IrUsage): void {
  into.input = (into.input ?? 0) + (u.input ?? 0);
  into.output = (into.output ?? 0) + (u.output ?? 0);
  if (u.cached !== null) into.cached = (into.cached ?? 0) + u.cached;
}

/** Runs one of the model's calls, or says why it cannot run. */
async function runSearch(
  call: IrToolCall,
  tool: SearchTool,
  done: number,
  io: EmulationIo<unknown>,
): Promise<IrWebSearch> {
  const id = io.newId();
  const query = queryOf(call);
  if (query === null) {
    const message = 'web search needs a non-empty "query" string';
    return { id, query: '', results: [], error: { code: 'invalid_tool_input', message } };
  }
  if (done >= tool.maxUses) {
    const message = `web search is unavailable: the limit of ${tool.maxUses} searches for this request is reached; answer with what you found`;
    return { id, query, results: [], error: { code: 'max_uses_exceeded', message } };
  }
  const found = await io.search({
    query,
    allowedDomains: tool.allowedDomains,
    blockedDomains: tool.blockedDomains,
  });
  if (found.ok) return { id, query, results: found.results, error: null };
  const message = `web search is unavailable: ${found.reason}.`;
  return { id, query, results: [], error: { code: 'unavailable', message } };
}

/**
 * The loop. A turn whose calls are all `web_search` is answered and the model called again; a
 * turn with no search call (or calls of the client's own tools too) is the answer the client
 * gets, with the searches before it. Calls past `max_uses` are answered with an error; the loop
 * ends after `max_uses + 2` model calls whatever the model does.
 */
export async function emulateSearch<E>(
  request: IrRequest,
  tool: SearchTool,
  io: EmulationIo<E>,
): Promise<Emulated<E>> {
  const shown: Shown[] = [];
  const show = (item: Shown) => {
    shown.push(item);
    io.shown(item);
  };
  const usage = emptyUsage();
  const messages: IrMessage[] = [...request.messages];
  const tools = [...request.tools.filter((t) => t.name !== SEARCH_FUNCTION), FUNCTION_TOOL];
  let toolChoice = request.toolChoice;
  /** Searches sent to the backend (what `max_uses` limits), and those that found something. */
  let tried = 0;
  let ran = 0;
  for (let turn = 0; ; turn++) {
    const answer = await io.call({ ...request, messages, tools, toolChoice, stream: false });
    if (!answer.ok) return { ok: false, error: answer.error, shown };
    const r = answer.response;
    addUsage(usage, r.usage);
    const calls = r.parts.filter(
      (p): p is IrToolCall => p.type === 'tool_call' && p.name === SEARCH_FUNCTION,
    );
    const own = r.parts.some((p) => p.type === 'tool_call' && p.name !== SEARCH_FUNCTION);
    const last = turn >= tool.maxUses + 1;
    if (calls.length > 0 && !last) {
      if (!own) for (const p of r.parts) if (p.type === 'text' && p.text !== '') show(p);
      const results: IrMessage = { role: 'user', parts: [] };
      for (const call of calls) {
        const s = await runSearch(call, tool, tried, io);
        if (!s.error || s.error.code === 'unavailable') tried++;
        if (!s.error) ran++;
        show({ type: 'web_search', search: s });
        results.parts.push({
          type: 'tool_result',
          callId: call.id,
          content: [{ type: 'text', text: resultForModel(s) }],
          isError: s.error !== null,
        });
      }
      if (!own) {
        messages.push({ role: 'assistant', parts: r.parts }, results);
        // A choice that forces the search would never let the model answer.
        if (toolChoice?.type === 'required' || toolChoice?.type === 'tool') toolChoice = null;
        continue;
      }
    }
    const parts = r.parts.filter((p) => !(p.type === 'tool_call' && p.name === SEARCH_FUNCTION));
    usage.webSearchRequests = ran;
    const stop = r.stop === 'tool_use' && !own ? 'end' : r.stop;
    return { ok: true, final: { ...r, parts, stop, usage }, shown };
  }
}
