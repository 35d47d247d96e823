import type { GatewayError } from '../wire/client-errors';

/** A target routing passed over, for `diagnostics.excluded` and the decision header. */
export interface ExcludedTarget {
  /** `provider/model@connection`. */
  target: string;
  reason: string;
  /** When it may serve again; null when only an operator can bring it back. */
  retryAfterMs: number | null;
}

const RETRY_AFTER_MIN_MS = 1_000;
const RETRY_AFTER_MAX_MS = 60_000;

/**
 * The answer when no candidate of a model could be tried: 503 `all_targets_cooling_down` with
 * the earliest `Retry-After` (1-60 s) when some of them come back by themselves, else 404
 * `no_executable_targets`. Both carry `diagnostics` (pool size, attempts, what was excluded).
 */
export function noTargetAnswer(
  model: string,
  excluded: readonly ExcludedTarget[],
  poolSize: number,
  attempted: number,
  /** The real earliest reset, unclamped, when the quota wait found it beyond its bound. */
  retryAfterMs: number | null = null,
): GatewayError {
  const diagnostics = {
    poolSize,
    attempted,
    excluded: excluded.map((e) => ({
      target: e.target,
      reason: e.reason,
      retryAfterMs: e.retryAfterMs,
    })),
  };
  const timed = excluded.filter((e) => e.retryAfterMs !== null);
  if (timed.length === 0) {
    return {
      status: 404,
      kind: 'not_found',
      code: 'no_executable_targets',
      message: `model "${model}" has no target that can be executed: ${excluded.map((e) => `${e.target} is ${e.reason}`).join('; ') || 'no targets'}`,
      extra: { diagnostics },
    };
  }
  const earliest = Math.min(...timed.map((e) => e.retryAfterMs!));
  const seconds = Math.ceil(
    (retryAfterMs !== null
      ? Math.max(RETRY_AFTER_MIN_MS, retryAfterMs)
      : Math.min(RETRY_AFTER_MAX_MS, Math.max(RETRY_AFTER_MIN_MS, earliest))) / 1000,
  );
  return {
    status: 503,
    kind: 'overloaded',
    code: 'all_targets_cooling_down',
    message: `every target of "${model}" is temporarily unavailable; retry in ${seconds} s`,
    headers: { 'retry-after': String(seconds) },
    extra: { diagnostics },
  };
}
