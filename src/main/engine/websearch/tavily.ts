// Tavily search API: `POST /search` with `{query, max_results, include_domains,
// exclude_domains}` and the key as a bearer token. https://docs.tavily.com/documentation/api-reference/endpoint/search
import { arr, obj } from '../translate/ir';
import type { Backend } from './types';

export const TAVILY_URL = 'https://api.tavily.com/search';

export const tavily: Backend = {
  needsKey: true,
  build(q, b) {
    const body: Record<string, unknown> = { query: q.query, max_results: q.maxResults };
    if (q.allowedDomains.length > 0) body.include_domains = q.allowedDomains;
    if (q.blockedDomains.length > 0) body.exclude_domains = q.blockedDomains;
    return {
      method: 'POST',
      url: b.url,
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        authorization: `Bearer ${b.apiKey ?? ''}`,
      },
      body: JSON.stringify(body),
    };
  },
  parse(body) {
    return arr(obj(body)?.results).map((r) => {
      const o = obj(r) ?? {};
      return { url: o.url, title: o.title, snippet: o.content, pageAge: o.published_date };
    });
  },
};
