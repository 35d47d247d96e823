// An imported provider that takes the id of a stored one at another URL (importers reuse preset
// ids: LiteLLM's `openai/...` is `openai`) would move that provider, and its stored keys with it,
// to the imported URL. Such a provider is imported under a free id instead, its connections and
// the combo targets that name it renamed with it. Pure: the store's ids and URLs come in as data.

import type { ComboTarget } from '../../../shared/contract';
import type { ImportDraft } from './draft';

export interface StoredProvider {
  id: string;
  baseUrl: string;
}

const sameUrl = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/** Renames the clashing providers of `draft` in place; one report line per rename. */
export function separateFromStored(
  draft: ImportDraft,
  stored: readonly StoredProvider[],
  storedConnections: ReadonlySet<string>,
): string[] {
  const urls = new Map(stored.map((p) => [p.id, p.baseUrl]));
  const providers = draft.config.providers ?? [];
  const taken = new Set([...urls.keys(), ...providers.map((p) => p.id)]);
  const renamed = new Map<string, string>();
  const notes: string[] = [];
  for (const p of providers) {
    const url = urls.get(p.id);
    if (url === undefined || sameUrl(url, p.baseUrl)) continue;
    const free = (id: string) =>
      !taken.has(id) && p.connections.every((_, j) => !storedConnections.has(`${id}-${j + 1}`));
    let n = 2;
    while (!free(`${p.id.slice(0, 60)}-${n}`)) n++;
    const id = `${p.id.slice(0, 60)}-${n}`;
    taken.add(id);
    renamed.set(p.id, id);
    notes.push(
      `provider ${p.id} exists with another URL (${url}); imported as ${id} so its stored keys stay with that URL`,
    );
    draft.sources[id] = draft.sources[p.id]!;
    delete draft.sources[p.id];
    p.id = id;
    p.connections = p.connections.map((c, j) => ({ ...c, id: `${id}-${j + 1}` }));
  }
  if (renamed.size === 0) return notes;
  const rename = (ref: string) => {
    const slash = ref.indexOf('/');
    const to = renamed.get(ref.slice(0, slash));
    return to === undefined ? ref : `${to}${ref.slice(slash)}`;
  };
  for (const combo of draft.config.combos ?? [])
    combo.targets = combo.targets.map(
      (t): ComboTarget => (typeof t === 'string' ? rename(t) : { ...t, target: rename(t.target) }),
    );
  return notes;
}
