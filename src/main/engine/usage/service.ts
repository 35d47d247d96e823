// Usage accounting as the engine runs it: each answered request's sample goes to the per-minute
// roll-up, the metrics and its key's budget; budget checks and reports read from memory.

import type {
  EngineEvent,
  KeyLimits,
  UsageGroupBy,
  UsageQuery,
  UsageReport,
} from '../../../shared/contract';
import type { StateBackend } from '../state/backend';
import type { UsageRollupRepo } from '../store';
import { billedTokens, type UsageSample } from './accounting';
import type { BudgetDecision, Threshold } from './budget';
import { BudgetBook } from './budgets';
import type { KeyRing } from './key-ring';
import { type ObservedRequest, RequestMetrics } from './metrics';
import { UsageRollup } from './rollup';
import { admitShared, chargeShared } from './team-budget';

export interface UsageServiceDeps {
  repo: UsageRollupRepo;
  keys: KeyRing;
  now: () => number;
  emit: (e: EngineEvent) => void;
  retentionDays?: () => number;
  onError?: (err: unknown) => void;
  flushIntervalMs?: number;
  /** Team mode: the key budgets are also counted on the team's Redis (see team-budget.ts). */
  shared?: StateBackend;
}

export const GROUPINGS: readonly UsageGroupBy[] = [
  'model',
  'provider',
  'connection',
  'key',
  'combo',
  'session',
];

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
/** A series has at most this many buckets per group; a finer step is refused. */
const MAX_POINTS = 2_000;

export class UsageQueryError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * `30m`, `1h`, `7d` as milliseconds; null when it is not such a duration. Zero is none: a zero
 * window holds nothing and a zero step divides by zero.
 */
export function durationMs(text: string): number | null {
  const m = /^(\d{1,6})([mhd])$/.exec(text.trim());
  const ms = m ? Number(m[1]) * UNIT_MS[m[2]!]! : 0;
  return ms > 0 ? ms : null;
}

export class UsageService {
  readonly budgets = new BudgetBook();
  readonly metrics = new RequestMetrics();
  private readonly rollup: UsageRollup;
  /** `key\0limit\0window end` of the warnings given, so each is given once per window. */
  private readonly warned = new Set<string>();
  /** Team mode: where the key budgets are also counted (null: this instance alone). */
  private readonly team: StateBackend | null;
  /**
   * Team mode only (undefined otherwise, so the local path stays synchronous): the team's check,
   * which counts the request on Redis; null when Redis cannot answer.
   */
  readonly admitTeam?: (
    key: string,
    limits: KeyLimits,
    now: number,
  ) => Promise<BudgetDecision | null>;

  constructor(private readonly deps: UsageServiceDeps) {
    this.rollup = new UsageRollup({
      repo: deps.repo,
      now: deps.now,
      ...(deps.retentionDays ? { retentionDays: deps.retentionDays } : {}),
      ...(deps.onError ? { onError: deps.onError } : {}),
      ...(deps.flushIntervalMs ? { flushIntervalMs: deps.flushIntervalMs } : {}),
    });
    this.budgets.seed(deps.repo, deps.now());
    const team = deps.shared?.kind === 'redis' ? deps.shared : null;
    this.team = team;
    if (team) this.admitTeam = (key, limits, now) => admitShared(team, key, limits, now);
  }

  /** The budget check of the request path; an allowed request counts towards its minute. */
  admit(key: string, limits: KeyLimits, now: number): BudgetDecision {
    const r = this.budgets.admit(key, limits, now);
    this.announce(key, r.crossed, now);
    return r.decision;
  }

  /** The reserve stage: the request's estimate held against the key's token and USD limits. */
  readonly reserve: BudgetBook['reserve'] = (...args) => this.budgets.reserve(...args);

  /** An answered request: into the roll-up, the metrics and its key's budget. */
  record(request: ObservedRequest, sample: UsageSample): void {
    this.rollup.add(sample);
    this.metrics.observe(request, sample);
    if (!sample.keyName) return;
    const limits = this.deps.keys.liveByName(sample.keyName)?.limits ?? {};
    const now = this.deps.now();
    const tokens = billedTokens(sample);
    const crossed = this.budgets.charge(sample.keyName, limits, tokens, sample.costUsd ?? 0, now);
    if (this.team) chargeShared(this.team, sample.keyName, tokens, sample.costUsd ?? 0, now);
    this.announce(sample.keyName, crossed, now);
  }

  /** `GET /api/usage`: totals per group since a time, and a series when a step is given. */
  report(query: UsageQuery): UsageReport {
    const now = this.deps.now();
    const by = query.by ?? 'model';
    if (!GROUPINGS.includes(by)) {
      throw new UsageQueryError('by', `by must be one of ${GROUPINGS.join(', ')}`);
    }
    const since = this.since(query.since ?? '24h', now);
    // What is still in memory is written first, so the answer includes the last second.
    this.rollup.flush();
    const rows = this.deps.repo.totals(by, since).map((r) => ({
      ...r,
      cacheHitRate: r.inputTokens > 0 ? r.cacheReadTokens / r.inputTokens : null,
    }));
    const report: UsageReport = { since, rows };
    if (query.step !== undefined) {
      const step = durationMs(query.step);
      if (step === null) throw new UsageQueryError('step', 'step must be like 1m, 1h or 1d');
      if ((now - since) / step > MAX_POINTS) {
        throw new UsageQueryError('step', `step is too fine: at most ${MAX_POINTS} points`);
      }
      report.series = this.deps.repo.series(by, since - (since % step), step);
    }
    return report;
  }

  flush(): void {
    this.rollup.flush();
  }

  close(): void {
    this.rollup.close();
  }

  private since(text: string, now: number): number {
    const back = durationMs(text);
    if (back !== null) return now - back;
    const at = Date.parse(text);
    if (Number.isNaN(at)) {
      throw new UsageQueryError('since', 'since must be an ISO time or a duration like 1h or 7d');
    }
    return at;
  }

  /**
   * Once per key, limit and window: use can cross 80 % again in the same window when the limit
   * is raised meanwhile; the user was told already.
   */
  private announce(key: string, crossed: readonly Threshold[], now: number): void {
    if (crossed.length === 0) return;
    for (const id of this.warned)
      if (Number(id.slice(id.lastIndexOf('\0') + 1)) <= now) this.warned.delete(id);
    for (const t of crossed) {
      const id = `${key}\0${t.limit}\0${t.resetsAt}`;
      if (this.warned.has(id)) continue;
      this.warned.add(id);
      this.deps.emit({ type: 'budget.threshold', at: now, key, ...t });
    }
  }
}
