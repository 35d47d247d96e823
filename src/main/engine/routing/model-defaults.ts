import type { ModelSpec } from '../../../shared/contract';
import { validateModelEntry } from '../../../shared/schema/provider';
import type { ModelDefaults } from '../config/catalog';
import table from './model-defaults.json';

/**
 * The reviewed table of well-known models (model-defaults.json), checked with the same rules as
 * `providers[].models[]` so a typo in it fails loudly at start rather than pricing silently wrong.
 */
export function loadModelDefaults(): ModelDefaults {
  const out = new Map<string, Omit<ModelSpec, 'id'>>();
  for (const [id, spec] of Object.entries(table.models)) {
    const entry = validateModelEntry({ id, ...spec }, `model-defaults.models.${id}`);
    if (typeof entry === 'string') continue;
    const { id: _, ...known } = entry;
    out.set(id, known);
  }
  return out;
}
