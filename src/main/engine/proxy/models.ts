import type { Catalog } from '../config/catalog';
import { DEFAULT_MODEL_ALIAS } from '../routing/resolve';

interface ModelEntry {
  id: string;
  ownedBy: string;
}

/**
 * Every name a client may put in `model`: combos first (they are what users configure), then
 * bare models that resolve unambiguously, then the explicit `provider/model` form. With an
 * active combo, the alias "default" comes first, so an agent that picks its model from this
 * list follows the tray's quick switch.
 */
export function listModels(catalog: Catalog, activeCombo: string | null = null): ModelEntry[] {
  const out: ModelEntry[] = [];
  const seen = new Set<string>();
  const add = (id: string, ownedBy: string) => {
    if (!seen.has(id)) {
      seen.add(id);
      out.push({ id, ownedBy });
    }
  };
  if (activeCombo && catalog.combos.has(activeCombo)) add(DEFAULT_MODEL_ALIAS, 'breakwater-combo');
  for (const combo of catalog.combos.values()) add(combo.name, 'breakwater-combo');
  for (const [model, owners] of catalog.modelOwners) {
    if (owners.length === 1) add(model, owners[0]!);
  }
  for (const p of catalog.providers.values()) {
    if (!p.enabled) continue;
    for (const m of p.models) add(`${p.id}/${m}`, p.id);
  }
  return out;
}

export function openAiModelList(entries: ModelEntry[], createdSec: number): unknown {
  return {
    object: 'list',
    data: entries.map((e) => ({
      id: e.id,
      object: 'model',
      created: createdSec,
      owned_by: e.ownedBy,
    })),
  };
}

export function anthropicModelList(entries: ModelEntry[], createdAt: string): unknown {
  return {
    data: entries.map((e) => ({
      type: 'model',
      id: e.id,
      display_name: e.id,
      created_at: createdAt,
    })),
    has_more: false,
    first_id: entries[0]?.id ?? null,
    last_id: entries.at(-1)?.id ?? null,
  };
}

/** `GET /v1beta/models` in the Gemini API's shape (`models/<id>`, the methods each serves). */
export function geminiModelList(entries: ModelEntry[]): unknown {
  return {
    models: entries.map((e) => ({
      name: `models/${e.id}`,
      displayName: e.id,
      supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
    })),
  };
}
