// Models configured with a context window and price, as `providers[].models[]` entries.
import type { ModelSpec } from '../../src/shared/contract';

export const GPT5: ModelSpec = {
  id: 'gpt-5',
  contextWindow: 400_000,
  price: { input: 1.25, output: 10, cacheRead: 0.125 },
};
export const GPT5_MINI: ModelSpec = { id: 'gpt-5-mini', price: { input: 0.25, output: 2 } };
