// The provider catalog (presets.json): data reviewed by hand, checked here with the config
// file's own rules so a preset the wizard offers is always a provider the engine accepts.

import type { ProviderPreset } from '../../../shared/contract';
import { ValidationError } from '../../../shared/validation-error';
import table from './presets.json';
import { validateProvider } from './validate';

/** A preset as the file holds it: model ids only (their metadata is the model table's). */
export type PresetEntry = Omit<ProviderPreset, 'models'> & { models: string[] };

const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** Checks one entry as `providers[]` of a config file, plus the catalog's own fields. */
export function checkPreset(value: unknown, field: string): PresetEntry {
  const raw = value as Partial<PresetEntry> & Record<string, unknown>;
  const { name, keyEnv, note, ...provider } = raw;
  const checked = validateProvider(provider, field);
  if (typeof name !== 'string' || name.trim() === '')
    throw new ValidationError(`${field}.name`, 'must be a non-empty string');
  if (keyEnv !== undefined && (typeof keyEnv !== 'string' || !ENV_NAME.test(keyEnv)))
    throw new ValidationError(`${field}.keyEnv`, 'must be an environment variable name');
  if (checked.authClass === 'api_key' && keyEnv === undefined)
    throw new ValidationError(`${field}.keyEnv`, 'an api_key provider names its key variable');
  if (note !== undefined && typeof note !== 'string')
    throw new ValidationError(`${field}.note`, 'must be a string');
  const models = checked.models.map((m) => (typeof m === 'string' ? m : m.id));
  return {
    id: checked.id,
    name,
    format: checked.format,
    baseUrl: checked.baseUrl,
    authClass: checked.authClass,
    ...(keyEnv !== undefined ? { keyEnv } : {}),
    models,
    ...(note !== undefined ? { note } : {}),
  };
}

let cached: PresetEntry[] | undefined;

/** Every preset, in the file's order (the order the wizard shows). Throws on a bad entry. */
export function loadPresets(): PresetEntry[] {
  if (!cached) {
    const seen = new Set<string>();
    cached = table.presets.map((p, i) => {
      const entry = checkPreset(p, `presets[${i}]`);
      if (seen.has(entry.id))
        throw new ValidationError(`presets[${i}].id`, `duplicate "${entry.id}"`);
      seen.add(entry.id);
      return entry;
    });
  }
  return cached;
}

export function findPreset(id: string): PresetEntry | undefined {
  return loadPresets().find((p) => p.id === id);
}
