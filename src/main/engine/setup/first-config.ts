// The config `breakwater init` writes and the wizard proposes: one provider per detected preset,
// keys by reference only, and a first combo that fails over across them.

import type {
  BreakwaterConfig,
  ComboConfig,
  DetectedProvider,
  ProviderConfig,
} from '../../../shared/contract';
import type { PresetEntry } from '../config/presets';

/** The combo name agents are pointed at (the README's example uses the same). */
export const FIRST_COMBO = 'coder';

export function providerFromDetected(d: DetectedProvider, preset: PresetEntry): ProviderConfig {
  return {
    id: preset.id,
    format: preset.format,
    baseUrl: d.baseUrl,
    authClass: preset.authClass,
    connections: [{ id: `${preset.id}-1`, ...(d.keyEnv ? { apiKeyEnv: d.keyEnv } : {}) }],
    models: d.models,
  };
}

/** A priority combo over each provider's first model, in the order given; null with none. */
export function firstCombo(providers: readonly ProviderConfig[]): ComboConfig | null {
  const targets = providers.flatMap((p) => {
    const first = p.models[0];
    if (first === undefined) return [];
    return [`${p.id}/${typeof first === 'string' ? first : first.id}`];
  });
  return targets.length > 0 ? { name: FIRST_COMBO, strategy: 'priority', targets } : null;
}

/** A config from what detection found; detections of unknown presets are ignored. */
export function configFromDetected(
  detected: readonly DetectedProvider[],
  presets: readonly PresetEntry[],
): BreakwaterConfig {
  const providers = detected.flatMap((d) => {
    const preset = presets.find((p) => p.id === d.preset);
    return preset ? [providerFromDetected(d, preset)] : [];
  });
  const combo = firstCombo(providers);
  return { providers, ...(combo ? { combos: [combo] } : {}) };
}
