import type { ModelSpec } from '../../../../shared/contract';
import type { StrategyRequest } from './types';

/** Output assumed when the client sets no `max_tokens`, so prices can still be compared. */
export const ASSUMED_OUTPUT_TOKENS = 4096;

/** USD this request would cost at `spec`'s price, or undefined when its price is unknown. */
export function estimatedCost(spec: ModelSpec, request: StrategyRequest): number | undefined {
  if (!spec.price) return undefined;
  const output = request.maxOutputTokens() ?? ASSUMED_OUTPUT_TOKENS;
  return (request.inputTokens() * spec.price.input + output * spec.price.output) / 1e6;
}

export function usd(n: number): string {
  return `$${n < 0.01 ? n.toFixed(5) : n.toFixed(3)}`;
}
