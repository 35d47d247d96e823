// A web search the gateway ran, as a Responses `web_search_call` output item.
// https://platform.openai.com/docs/guides/tools-web-search
import type { IrWebSearch, Json } from '../ir';

export function webSearchItem(s: IrWebSearch, id: string, done: boolean): Json {
  const status = !done ? 'in_progress' : s.error ? 'failed' : 'completed';
  return {
    id,
    type: 'web_search_call',
    status,
    action: {
      type: 'search',
      query: s.query,
      ...(done ? { sources: s.results.map((r) => ({ type: 'url', url: r.url })) } : {}),
    },
  };
}
