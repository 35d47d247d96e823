// A web search the gateway ran, as Anthropic's server tool shows it: a `server_tool_use` block
// and its `web_search_tool_result`. https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool
import { arr, type IrText, type IrWebSearch, type Json, obj, str } from '../ir';

/**
 * The snippet rides in `encrypted_content` (opaque to clients, sent back in later turns), so a
 * conversation that continues on a provider without the tool still shows the model what it read.
 */
const sealSnippet = (snippet: string): string => Buffer.from(snippet, 'utf8').toString('base64');

/** The two blocks of one search, in the order the API sends them. */
export function webSearchBlocks(s: IrWebSearch): [Json & { input: Json }, Json] {
  const use = { type: 'server_tool_use', id: s.id, name: 'web_search', input: { query: s.query } };
  const content = s.error
    ? { type: 'web_search_tool_result_error', error_code: s.error.code }
    : s.results.map((r) => ({
        type: 'web_search_result',
        url: r.url,
        title: r.title,
        encrypted_content: sealSnippet(r.snippet),
        page_age: r.pageAge,
      }));
  return [use, { type: 'web_search_tool_result', tool_use_id: s.id, content }];
}

/** The longest snippet read back from a result block of an earlier turn. */
const MAX_HISTORY_SNIPPET = 2000;

/**
 * An earlier turn's search blocks, for a provider that has no such blocks: the query, and each
 * result's title, URL and snippet, as the assistant's own text.
 */
export function webSearchHistory(block: Json): IrText | null {
  if (block.type === 'server_tool_use') {
    const query = str(obj(block.input)?.query);
    return query === null ? null : { type: 'text', text: `[searched the web for: ${query}]` };
  }
  const lines: string[] = [];
  for (const r of arr(block.content)) {
    const result = obj(r);
    if (result?.type !== 'web_search_result') continue;
    const sealed = str(result.encrypted_content) ?? '';
    let snippet = '';
    try {
      snippet = Buffer.from(sealed.slice(0, MAX_HISTORY_SNIPPET * 2), 'base64')
        .toString('utf8')
        .slice(0, MAX_HISTORY_SNIPPET);
    } catch {
      snippet = '';
    }
    lines.push(`- ${str(result.title) ?? ''} <${str(result.url) ?? ''}> ${snippet}`.trim());
  }
  return { type: 'text', text: `[web search results]\n${lines.join('\n') || '(none)'}` };
}
