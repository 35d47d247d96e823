// The engine's entry to the shared config schema (src/shared/schema). The one thing the engine
// adds is the range of each per-provider timeout: the same as the global timeout setting's, so a
// per-provider value cannot be absurd.

import type { BreakwaterConfig, GatewayConfig, ProviderInput } from '../../../shared/contract';
import { validateConfig as validateConfigWith } from '../../../shared/schema/config';
import { validateGateway as validateGatewayWith } from '../../../shared/schema/gateway';
import { validateProvider as validateProviderWith } from '../../../shared/schema/provider';
import { TIMEOUT_KEYS, type TimeoutRanges } from '../../../shared/schema/timeouts';
import { DAY_MS } from '../../../shared/schema/values';
import { findSetting } from '../settings/registry';

export {
  parseTargetRef,
  type TargetRef,
  targetRefOf,
  validateCombo,
  weightOf,
} from '../../../shared/schema/combo';
export {
  checkSubscriptionProvider,
  validateConnection,
} from '../../../shared/schema/connection';
export { ValidationError } from '../../../shared/validation-error';

function timeoutRanges(): TimeoutRanges {
  const ranges = {} as TimeoutRanges;
  for (const key of TIMEOUT_KEYS) {
    const def = findSetting(`timeouts.${key}`);
    ranges[key] = { min: def?.min ?? 1, max: def?.max ?? DAY_MS };
  }
  return ranges;
}

export function validateProvider(value: unknown, field: string): ProviderInput {
  return validateProviderWith(value, field, timeoutRanges());
}

export function validateGateway(value: unknown, field: string): GatewayConfig {
  return validateGatewayWith(value, field, timeoutRanges());
}

export function validateConfig(value: unknown): BreakwaterConfig {
  return validateConfigWith(value, timeoutRanges());
}
