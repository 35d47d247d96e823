import { ahead, configured, flatten, groups, type Strategy } from './types';

/**
 * The target that last served the same prompt prefix (system, tools, first message), so the
 * provider's prompt cache is hit; a new prefix takes the configured order.
 */
export const cacheOptimized: Strategy = (candidates, signals, request) => {
  const prefix = request.prefix();
  if (prefix === null) return configured(candidates, 'no prompt prefix');
  const last = signals.prefixTarget(request.combo, prefix);
  const tag = prefix.slice(0, 8);
  if (last === undefined) return configured(candidates, `prefix ${tag} not seen yet`);
  const all = groups(candidates);
  const warm = all.find((g) => g.label === last);
  if (!warm) return configured(candidates, `prefix ${tag} cached at ${last}, not eligible now`);
  return { order: flatten(ahead(all, warm)), reason: `picked ${last}: prefix ${tag} cached there` };
};
