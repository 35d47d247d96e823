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

const ALL: CapabilityCheck = Object.freeze({ kind: 'all' });

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
  if (lacking.length === 0) return ALL;
  // Nothing is built unless a target is left out (the facts keep what they computed).
  let out: Map<string, ModelCapability[]> | null = null;
  for (const t of lacking) {
    let missing: ModelCapability[] | null = null;
    for (const c of t.lacks) {
      if (!NEEDS[c](facts())) continue;
      if (c === 'webSearch' && t.searchByGateway && facts().webSearchByTool()) continue;
      missing ??= [];
      missing.push(c);
    }
    if (missing) {
      out ??= new Map();
      out.set(t.label, missing);
    }
  }
  if (out === null) return ALL;
  const skipped = [...out].map(
    ([label, missing]) => `skipped ${label}: no ${missing.join(', no ')}`,
  );
  const kept = candidates.filter((c) => !out.has(c.target.label));
  if (kept.length > 0) return { kind: 'some', kept, skipped };
  const all = new Set([...out.values()].flat());
  return { kind: 'none', needs: CAPABILITIES.filter((c) => all.has(c)), skipped };
}
