// Which requests carry a search tool the API itself would run, and which providers run it.
import type { ClientFormat, ProviderFormat } from '../../../shared/contract';
import { arr, type Json, obj } from '../translate/ir';

/** What the client's search tool allows. */
export interface SearchTool {
  maxUses: number;
  allowedDomains: string[];
  blockedDomains: string[];
}

/** Searches per request when the tool sets no `max_uses`, and the most it may set. */
export const DEFAULT_MAX_USES = 5;
const MAX_USES_CAP = 20;
const MAX_DOMAINS = 100;

/** Anthropic's server tool (`web_search_20250305`, later versions alike). */
const ANTHROPIC_TOOL = /^web_search_\d{8}$/;
/** Responses' hosted tool and its dated and preview names. */
const RESPONSES_TOOL = /^web_search(_preview)?(_\d{4}_\d{2}_\d{2})?$/;

/** Bytes every request with a search tool contains: a scan for them is the off path's whole cost. */
const SEARCH_MARK = Buffer.from('web_search');
const GEMINI_MARK = Buffer.from('googleSearch');
const GEMINI_SNAKE_MARK = Buffer.from('google_search');

/** Whether the body may name a search tool (a byte scan, no allocation): only then is it read. */
export function maySearch(format: ClientFormat, raw: Buffer): boolean {
  return format === 'gemini'
    ? raw.includes(GEMINI_MARK) || raw.includes(GEMINI_SNAKE_MARK)
    : raw.includes(SEARCH_MARK);
}

/** Gemini's search grounding tools, either spelling. */
const GEMINI_KEYS = [
  'googleSearch',
  'google_search',
  'googleSearchRetrieval',
  'google_search_retrieval',
];

function domains(v: unknown): string[] {
  return arr(v)
    .filter((d): d is string => typeof d === 'string' && d.trim() !== '')
    .slice(0, MAX_DOMAINS);
}

function maxUses(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1
    ? Math.min(v, MAX_USES_CAP)
    : DEFAULT_MAX_USES;
}

/** The request's search tool in its client format, or null when it has none. */
export function searchToolOf(format: ClientFormat, body: Json): SearchTool | null {
  for (const t of arr(body.tools)) {
    const tool = obj(t);
    if (format === 'gemini' && tool && GEMINI_KEYS.some((k) => tool[k] !== undefined)) {
      return { maxUses: DEFAULT_MAX_USES, allowedDomains: [], blockedDomains: [] };
    }
    if (!tool || typeof tool.type !== 'string') continue;
    if (format === 'anthropic' && ANTHROPIC_TOOL.test(tool.type)) {
      return {
        maxUses: maxUses(tool.max_uses),
        allowedDomains: domains(tool.allowed_domains),
        blockedDomains: domains(tool.blocked_domains),
      };
    }
    if (format === 'openai-responses' && RESPONSES_TOOL.test(tool.type)) {
      return {
        maxUses: DEFAULT_MAX_USES,
        allowedDomains: domains(obj(tool.filters)?.allowed_domains),
        blockedDomains: [],
      };
    }
  }
  return null;
}

/** Whether a provider of this format runs the client's search tool itself. */
export function runsNatively(client: ClientFormat, provider: ProviderFormat): boolean {
  return (
    (client === 'anthropic' && provider === 'anthropic') ||
    (client === 'openai-responses' && provider === 'openai') ||
    (client === 'gemini' && provider === 'gemini')
  );
}
