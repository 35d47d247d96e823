// A backend's results are untrusted input: each field is checked, cleaned and bounded here, and
// results outside the tool's allowed domains (or inside its blocked ones) are left out.
import type { IrSearchResult } from '../translate/ir';
import type { RawResult, SearchQuery } from './types';

const MAX_URL = 2048;
const MAX_TITLE = 300;
const MAX_SNIPPET = 1000;
const MAX_AGE = 64;

/** Control characters (but tab and newline) are removed: they could forge lines or SSE framing. */
function clean(v: unknown, max: number): string {
  if (typeof v !== 'string') return '';
  let out = '';
  for (const ch of v) {
    const c = ch.charCodeAt(0);
    if (c >= 0x20 ? c !== 0x7f : c === 0x09 || c === 0x0a) out += ch;
    if (out.length >= max * 2) break;
  }
  return out.trim().slice(0, max);
}

/** A bare host name from a domain the client gave (`https://Example.com/x` → `example.com`). */
export function domainOf(d: string): string {
  return d
    .trim()
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, '')
    .replace(/[/:?#].*$/, '')
    .replace(/^\*\./, '')
    .replace(/\.$/, '');
}

function inDomains(host: string, domains: readonly string[]): boolean {
  return domains.some((d) => {
    const bare = domainOf(d);
    return bare !== '' && (host === bare || host.endsWith(`.${bare}`));
  });
}

function resultOf(r: RawResult): IrSearchResult | null {
  const url = typeof r.url === 'string' ? r.url.trim() : '';
  if (url.length === 0 || url.length > MAX_URL) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  const age = clean(r.pageAge, MAX_AGE);
  return {
    url: parsed.toString(),
    title: clean(r.title, MAX_TITLE) || parsed.hostname,
    snippet: clean(r.snippet, MAX_SNIPPET),
    pageAge: age === '' ? null : age,
  };
}

/** At most `maxResults` well-formed http(s) results, distinct by URL, in the domains asked for. */
export function checkedResults(raw: readonly RawResult[], q: SearchQuery): IrSearchResult[] {
  const out: IrSearchResult[] = [];
  const seen = new Set<string>();
  for (const r of raw) {
    if (out.length >= q.maxResults) break;
    const result = resultOf(r);
    if (!result || seen.has(result.url)) continue;
    const host = new URL(result.url).hostname.toLowerCase();
    if (q.allowedDomains.length > 0 && !inDomains(host, q.allowedDomains)) continue;
    if (inDomains(host, q.blockedDomains)) continue;
    seen.add(result.url);
    out.push(result);
  }
  return out;
}
