import type { ModelCapability } from '../../../shared/contract';
import { CAPABILITIES } from '../../../shared/schema/provider';
import type { Catalog } from '../config/catalog';
import type { Candidate } from './resolve';
import type { RequestFacts } from './rules';

/** A target whose model is known to lack some capabilities. */
interface Lacking {
  readonly label: string;
  readonly lacks: readonly ModelCapability[];
  /** Lacks `webSearch` but calls functions: the gateway's own search loop serves a search tool. */
  readonly searchByGateway: boolean;
}

const NONE: readonly Lacking[] = Object.freeze([]);
// Routes are shared and frozen per catalog (resolve.ts), so their candidate lists can key this.
const lackingOf = new WeakMap<readonly Candidate[], readonly Lacking[]>();

/** The targets among the candidates that lack something; unknown (no listing) lacks nothing. */
function lackingTargets(catalog: Catalog, candidates: readonly Candidate[]): readonly Lacking[] {
  const hit = lackingOf.get(candidates);
  if (hit) return hit;
  const seen = new Set<string>();
  const out: Lacking[] = [];
  for (const { target } of candidates) {
    if (seen.has(target.label)) continue;
    seen.add(target.label);
    const listed = catalog.modelSpec(target.provider.id, target.model).capabilities;
    if (!listed) continue;
    const lacks = CAPABILITIES.filter((c) => !listed.includes(c));
    if (lacks.length > 0)
      out.push({ label: target.label, lacks, searchByGateway: listed.includes('tools') });
  }
  const result = out.length === 0 ? NONE : out;
  lackingOf.set(candidates, result);
  return result;
}

const NEEDS: Record<ModelCapability, (f: RequestFacts) => boolean> = {
  vision: (f) => f.images(),
  tools: (f) => f.tools(),
  reasoning: (f) => f.thinking(),
  webSearch: (f) => f.webSearch(),
};

export type CapabilityCheck =
  | { kind: 'all' }
  | { kind: 'some'; kept: Candidate[]; skipped: string[] }
  | { kind: 'none'; needs: ModelCapability[]; skipped: string[] };

/**
 * Leaves out the candidates whose model is known to lack what the request needs (an image for
 * a text-only model). The request is only looked at when some target lacks something, and
 * then only for what those lack.
 */
export function checkCapabilities(
  catalog: Catalog,
  candidates: readonly Candidate[],
  facts: () => RequestFacts,
): CapabilityCheck {
  const lacking = lackingTargets(catalog, candidates);
  if (lacking.length === 0) return { kind: 'all' };
  const needed = new Map<ModelCapability, boolean>();
  const needs = (c: ModelCapability) => {
    let n = needed.get(c);
    if (n === undefined) {
      n = NEEDS[c](facts());
      needed.set(c, n);
    }
    return n;
  };
  const out = new Map<string, ModelCapability[]>();
  for (const t of lacking) {
    const missing = t.lacks.filter(
      (c) => needs(c) && !(c === 'webSearch' && t.searchByGateway && facts().webSearchByTool()),
    );
    if (missing.length > 0) out.set(t.label, missing);
  }
  if (out.size === 0) return { kind: 'all' };
  const skipped = [...out].map(
    ([label, missing]) => `skipped ${label}: no ${missing.join(', no ')}`,
  );
  const kept = candidates.filter((c) => !out.has(c.target.label));
  if (kept.length > 0) return { kind: 'some', kept, skipped };
  const all = new Set([...out.values()].flat());
  return { kind: 'none', needs: CAPABILITIES.filter((c) => all.has(c)), skipped };
}
