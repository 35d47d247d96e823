import type { BoundedMaps } from '../bounded-map';
import type { Clock } from '../clock';
import type { Catalog } from '../config/catalog';
import type { EventBus } from '../events';
import type { Logger } from '../logger';
import type { ListenInfo } from '../proxy/binding';
import type { FlowControl } from '../resilience/flow';
import type { LeaseService } from '../resilience/leases';
import type { ResilienceManager } from '../resilience/manager';
import type { QuotaWaitRoom } from '../resilience/quota-wait';
import type { ShapeRepairs } from '../resilience/shape';
import type { SubscriptionService } from '../resilience/subscription';
import type { QuotaBook } from '../routing/quota-book';
import type { Settings } from '../settings/settings';
import type { StateBackend } from '../state/backend';
import type { Store } from '../store';
import type { UpstreamPools } from '../upstream/pools';
import type { CacheWatch } from '../usage/cache-watch';
import type { KeyRing } from '../usage/key-ring';
import type { UsageService } from '../usage/service';
import type { SessionBook } from '../usage/sessions';
import type { GatewayStatus } from './status';

/** What every builder of the engine starts from: the host's seams and the opened storage. */
export interface Foundation {
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  readonly log: Logger;
  readonly events: EventBus;
  readonly shared: StateBackend;
  readonly store: Store;
  readonly settings: Settings;
  /** State keyed by what clients choose (sessions, prefixes): swept, capped, in `/metrics`. */
  readonly maps: BoundedMaps;
}

/** The gateway keys and what is counted against them. */
export interface Accounts {
  readonly keyRing: KeyRing;
  readonly usage: UsageService;
  readonly quotas: QuotaBook;
  /** Agent sessions' turns so far (`GET /api/sessions/{id}`). */
  readonly sessions: SessionBook;
  /** Sessions' prompt-cache reads per turn (`GET /api/usage/cache`, `cache.lost`). */
  readonly cacheWatch: CacheWatch;
}

/** The resilience mechanisms, each with state that outlives a request. */
export interface ResilienceServices {
  readonly resilience: ResilienceManager;
  readonly subscription: SubscriptionService;
  readonly shapeRepairs: ShapeRepairs;
  readonly flow: FlowControl;
  readonly leases: LeaseService;
  /** Requests waiting for a quota reset (issue 29). */
  readonly quotaWaits: QuotaWaitRoom;
}

/** Everything built before the front ends (admin API, pipeline, server), which read it. */
export interface EngineParts extends Foundation, Accounts, ResilienceServices {
  readonly pools: UpstreamPools;
  /** The current catalog: replaced on every reload, so read it through this. */
  catalog(): Catalog;
  readonly status: GatewayStatus;
  /** Where the gateway is bound now; the dashboard may move it. */
  listening(): ListenInfo;
}
