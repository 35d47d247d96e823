// Brave Search API, web search: `GET /res/v1/web/search?q=…&count=…` with the key in
// `X-Subscription-Token`. https://api-dashboard.search.brave.com/app/documentation/web-search
import { arr, obj } from '../translate/ir';
import type { Backend } from './types';

export const BRAVE_URL = 'https://api.search.brave.com/res/v1/web/search';

/** Brave returns at most 20 results a page. */
const MAX_COUNT = 20;

export const brave: Backend = {
  needsKey: true,
  build(q, b) {
    const url = new URL(b.url);
    url.searchParams.set('q', q.query);
    // Asks for more than needed when results will be filtered by domain afterwards.
    const filtered = q.allowedDomains.length + q.blockedDomains.length > 0;
    url.searchParams.set('count', String(filtered ? MAX_COUNT : Math.min(MAX_COUNT, q.maxResults)));
    return {
      method: 'GET',
      url: url.toString(),
      headers: { accept: 'application/json', 'x-subscription-token': b.apiKey ?? '' },
    };
  },
  parse(body) {
    return arr(obj(obj(body)?.web)?.results).map((r) => {
      const o = obj(r) ?? {};
      return { url: o.url, title: o.title, snippet: o.description, pageAge: o.age ?? o.page_age };
    });
  },
};
