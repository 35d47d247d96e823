// SearXNG's JSON API: `GET <url>/search?q=…&format=json` (format json must be enabled on the
// instance). https://docs.searxng.org/dev/search_api.html
import { arr, obj } from '../translate/ir';
import type { Backend } from './types';

export const searxng: Backend = {
  needsKey: false,
  build(q, b) {
    const url = new URL(`${b.url.replace(/\/+$/, '')}/search`);
    url.searchParams.set('q', q.query);
    url.searchParams.set('format', 'json');
    return { method: 'GET', url: url.toString(), headers: { accept: 'application/json' } };
  },
  parse(body) {
    return arr(obj(body)?.results).map((r) => {
      const o = obj(r) ?? {};
      return { url: o.url, title: o.title, snippet: o.content, pageAge: o.publishedDate };
    });
  },
};
