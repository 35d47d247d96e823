// The wizard's choices as plain data, and what they become: providers whose connections name
// the key variable (or hold a pasted key), and a first combo over one model of each.

import type {
  ComboConfig,
  ComboStrategy,
  DetectedProvider,
  ProviderInput,
  ProviderPreset,
} from '../../../../shared/contract';
import { MULTI_CALL_STRATEGIES, STRATEGIES } from '../../../../shared/schema/combo';

export interface Choice {
  preset: ProviderPreset;
  /** Found by detection (key variable set, or local server answering). */
  detected: DetectedProvider | null;
  selected: boolean;
  /** The variable to read the key from; empty when a key is pasted or none is needed. */
  keyEnv: string;
  /** A pasted key (stored sealed); used only when no variable is named. */
  apiKey: string;
  baseUrl: string;
}

export const WIZARD_STRATEGIES: ComboStrategy[] = STRATEGIES.filter(
  (s) => !MULTI_CALL_STRATEGIES.includes(s),
);

export function choiceOf(preset: ProviderPreset, detected: DetectedProvider | null): Choice {
  return {
    preset,
    detected,
    selected: detected !== null,
    keyEnv: detected?.keyEnv ?? preset.keyEnv ?? '',
    apiKey: '',
    baseUrl: detected?.baseUrl ?? preset.baseUrl,
  };
}

export function modelsOf(c: Choice): string[] {
  return c.detected ? c.detected.models : c.preset.models.map((m) => m.id);
}

export function providerInput(c: Choice): ProviderInput {
  const key =
    c.preset.authClass === 'local'
      ? {}
      : c.keyEnv.trim()
        ? { apiKeyEnv: c.keyEnv.trim() }
        : c.apiKey.trim()
          ? { apiKey: c.apiKey.trim() }
          : {};
  return {
    id: c.preset.id,
    format: c.preset.format,
    baseUrl: c.baseUrl.trim(),
    authClass: c.preset.authClass,
    connections: [{ id: `${c.preset.id}-1`, ...key }],
    models: modelsOf(c),
  };
}

export function comboOf(name: string, strategy: ComboStrategy, targets: string[]): ComboConfig {
  return { name: name.trim(), strategy, targets };
}
