import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  GatewayApiKeyConfig,
  KeyLimits,
  RequestLogEntry,
  UpstreamTimeouts,
} from '../../../../shared/contract';
import type { Clock } from '../../clock';
import type { Catalog } from '../../config/catalog';
import type { Logger } from '../../logger';
import type { Cut } from '../../resilience/continuation';
import type { FlowControl } from '../../resilience/flow';
import type { OperatorRule } from '../../resilience/health';
import type { LeaseService } from '../../resilience/leases';
import type { ResilienceManager } from '../../resilience/manager';
import type { QuotaWaitRoom } from '../../resilience/quota-wait';
import type { ShapeRepairSettings, ShapeRepairs } from '../../resilience/shape';
import type { SubscriptionService } from '../../resilience/subscription';
import type { FairShare } from '../../routing/fair-share';
import type { Candidate } from '../../routing/resolve';
import type { RoutingSignals } from '../../routing/signals';
import type { ThroughputWatchdogOptions } from '../../settings/resilience-defaults';
import type { UpstreamPools } from '../../upstream/pools';
import type { PriceOf, UsageSample } from '../../usage/accounting';
import type { BudgetDecision, Hold } from '../../usage/budget';
import type { BudgetReservation } from '../../usage/budgets';
import type { CacheLoss, CacheWatch } from '../../usage/cache-watch';
import type { CaptureSettings, StoredCapture } from './capture-held';

/** What the front door needs: who may call, how much they may send, whether to serve at all. */
export interface FrontDoorDeps {
  /** The bound host: requests naming another (DNS rebinding) are refused. */
  host: string;
  /** The gateway API keys (from the store): none live means loopback clients only. */
  keys: {
    readonly size: number;
    match(presented: string | null): GatewayApiKeyConfig | null;
  };
  maxBodyBytes: number;
  startedAt: number;
  /** A client closed its connection before its body was in (no log row: counted only). */
  uploadAborted?(): void;
  /** True while the operator has paused the proxy (503 `gateway_paused`). */
  paused(): boolean;
  /** The browser dashboard under `/ui`, when this host serves it; true when it answered. */
  ui?(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean>;
}

export interface PipelineDeps extends FrontDoorDeps {
  catalog(): Catalog;
  /** The same object until settings change: merges with provider timeouts are kept by it. */
  timeouts(): Readonly<UpstreamTimeouts>;
  pools: UpstreamPools;
  clock: Clock;
  log: Logger;
  /** Upstream attempts in flight, per connection (for the snapshot). */
  inFlight: Map<string, number>;
  /** Exclusive session leases (§10): fence, candidate plan, and where a managed request landed. */
  leases?: LeaseService;
  /**
   * Called once per request with its log row (batched to SQLite and emitted as an event) and
   * its usage sample (rolled up per minute, counted against its key's budgets), with what was
   * captured of its attempts when it is kept (capture-build.ts); answers the row's id.
   */
  record(
    entry: Omit<RequestLogEntry, 'id'>,
    sample: UsageSample,
    capture: StoredCapture | null,
  ): number;
  /** The model price table: USD per million tokens of a provider's model. */
  priceOf?: PriceOf;
  /** Gateway key budgets: whether a request may go (an allowed one counts towards its minute). */
  budgets?: {
    admit(key: string, limits: KeyLimits, now: number): BudgetDecision;
    /** Team mode: the team's check, counting the request on Redis (null: Redis cannot answer). */
    admitTeam?(key: string, limits: KeyLimits, now: number): Promise<BudgetDecision | null>;
    /** Holds the request's estimate against the key's token and USD limits until it ends. */
    reserve?(
      key: string,
      limits: KeyLimits,
      ask: Hold,
      now: number,
    ): { decision: BudgetDecision; reservation: BudgetReservation | null };
  };
  /** Breaker, cooldown and lockout state: decides which candidates may go, learns outcomes. */
  resilience: ResilienceManager;
  failoverBudgetMs(): number;
  /** The emergency fallback target (`provider/model`) when set and switched on. */
  emergencyFallback(): string | null;
  /** The combo the model "default" routes to (`routing.activeCombo`), null when none is set. */
  activeCombo?(): string | null;
  errorRules(): readonly OperatorRule[];
  /** maxConcurrent semaphores, request queues and session affinity. */
  flow: FlowControl;
  /** Anthropic subscription accounts: low-priority lane and limit reset (§2). */
  subscription?: SubscriptionService;
  cooldownWait(): Readonly<CooldownWaitSettings>;
  /** `quotaWait.*`: waiting for a near quota reset instead of failing (issue 29). */
  quotaWait?(): Readonly<QuotaWaitSettings>;
  /** The requests waiting for a quota reset. */
  quotaWaits?: QuotaWaitRoom;
  /** Reports a queue rejection for the event stream. */
  events?(r: { code: string; candidate: Candidate; message: string }): void;
  /** The search backend the gateway runs a search tool on for providers without one (web-search.ts). */
  webSearch?: import('../../websearch/service').WebSearchService;
  /** A search the gateway ran could not run: for the event stream. */
  webSearchUnavailable?(backend: string | null, cause: string): void;
  /** What combo strategies decide from (docs/routing.md), fed by every upstream call. */
  routing?: RoutingSignals;
  /** quota-share's fair sharing of a combo's connections between gateway keys. */
  share?: FairShare;
  /** Reports a stream continued after a cut, for the event stream (issue 28). */
  continued?(r: { candidate: Candidate; cut: Cut; continuation: number }): void;
  /** `streamContinuation.*` when continuation is on (issue 28), else null. */
  continuation?(): Readonly<ContinuationSettings> | null;
  /** Stream throughput watchdog settings (§6) when it is switched on, else null. */
  watchdog?(): ThroughputWatchdogOptions | null;
  /** Request-shape repairs and the heartbeat-proof idle timeout (issue 17). */
  shape?: ShapeDeps;
  /** Which requests keep their attempts' bodies (`requestLog.captureBodies`), and how much. */
  capture?(): Readonly<CaptureSettings>;
  /** Sessions' prompt-cache hit rate per turn, and their cache losses (issue 30). */
  cacheWatch?: CacheWatchDeps;
  /** `sessionAffinity.cacheWaitMs`: how long a session waits for its busy cache key. */
  cacheWaitMs?(): number;
}

/** The cache watch and where its losses go (the `cache.lost` event). */
export interface CacheWatchDeps {
  watch: CacheWatch;
  /** False while `cacheWatch.lossPercent` is 0. */
  enabled(): boolean;
  lost(loss: CacheLoss): void;
}

export interface ContinuationSettings {
  maxContinuations: number;
  holdToolCalls: boolean;
}

export interface ShapeDeps {
  repairs: ShapeRepairs;
  settings(): Readonly<ShapeRepairSettings>;
  /** Whether an event stream's idle timeout counts only content (heartbeats do not reset it). */
  contentIdle(): boolean;
}

export interface QuotaWaitSettings {
  maxWaitMs: number;
  keepAliveMs: number;
}

/** `comboCooldownWait.*`: waiting out a short rate-limit cooldown instead of failing. */
export interface CooldownWaitSettings {
  enabled: boolean;
  maxWaitMs: number;
  maxAttempts: number;
  budgetMs: number;
}
