/** Request-queue limits of one provider+connection (RESILIENCE.md §5), resolved and clamped. */
export interface QueueLimits {
  /** Budget for waiting in the queue; its timer stops when the job starts. */
  maxWaitMs: number;
  /** Bottleneck job expiration, counted from the start of execution. */
  executionMaxWaitMs: number;
  /** Waiting requests at which a new one is refused at once; 0 = unlimited. */
  maxQueueDepth: number;
}

export type QueueCode =
  | 'RATE_LIMIT_QUEUE_FULL'
  | 'RATE_LIMIT_QUEUE_TIMEOUT'
  | 'RATE_LIMIT_EXECUTION_TIMEOUT';

export type AdmissionDecision =
  | { admit: true }
  | { admit: false; code: 'RATE_LIMIT_QUEUE_FULL'; retryAfterMs: number };

const DAY = 86_400_000;

export function clampQueueTime(ms: number): number {
  return Math.min(DAY, Math.max(1, Math.round(ms)));
}

/**
 * The execution expiration never kills a healthy response: it is raised to the upstream's own
 * deadline when that is longer.
 */
export function effectiveExpiration(limits: QueueLimits, upstreamTotalMs: number): number {
  return Math.max(limits.executionMaxWaitMs, upstreamTotalMs);
}

/**
 * Whether a new request may join the queue. Pure: the caller passes how many already wait.
 * Retry-After for a full queue is the wait budget (bounded 1–60 s): by then the line has moved.
 */
export function admit(queued: number, limits: QueueLimits): AdmissionDecision {
  if (limits.maxQueueDepth > 0 && queued >= limits.maxQueueDepth) {
    return {
      admit: false,
      code: 'RATE_LIMIT_QUEUE_FULL',
      retryAfterMs: Math.min(60_000, Math.max(1_000, limits.maxWaitMs)),
    };
  }
  return { admit: true };
}

/** Per-connection overrides win over the effective global values; everything is clamped. */
export function resolveLimits(
  global: QueueLimits,
  override: Partial<QueueLimits> | undefined,
): QueueLimits {
  return {
    maxWaitMs: clampQueueTime(override?.maxWaitMs ?? global.maxWaitMs),
    executionMaxWaitMs: clampQueueTime(override?.executionMaxWaitMs ?? global.executionMaxWaitMs),
    maxQueueDepth: Math.min(
      100_000,
      Math.max(0, Math.round(override?.maxQueueDepth ?? global.maxQueueDepth)),
    ),
  };
}
