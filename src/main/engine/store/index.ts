// The store: one SQLite file, its repositories and the request log.

import { type ComboRepo, createComboRepo } from './combos';
import {
  type ConnectionRepo,
  type ConnectionRepoOptions,
  createConnectionRepo,
} from './connections';
import { openDatabase } from './database';
import type { Db } from './db';
import { createGatewayKeyRepo, type GatewayKeyRepo } from './gateway-keys';
import { createLearnedFixRepo, type LearnedFixRepo } from './learned-fixes';
import { createLeaseRepo, type LeaseRepo } from './leases';
import { createProviderRepo, type ProviderRepo } from './providers';
import { createQuotaRepo, type QuotaRepo } from './quotas';
import { createRequestLog, type RequestLog, type RequestLogOptions } from './request-log';
import { createResilienceRepo, type ResilienceRepo } from './resilience';
import { createSessionPinRepo, type SessionPinRepo } from './session-pins';
import { createSettingsRepo, type SettingsRepo } from './settings';
import { createSubscriptionRepo, type SubscriptionRepo } from './subscription';
import { createUsageRollupRepo, type UsageRollupRepo } from './usage-rollups';
import { createWebSearchRepo, type WebSearchRepo } from './web-search';

export interface StoreOptions {
  requestLog?: RequestLogOptions;
  connections?: ConnectionRepoOptions;
}

export interface Store {
  db: Db;
  providers: ProviderRepo;
  connections: ConnectionRepo;
  combos: ComboRepo;
  settings: SettingsRepo;
  requestLog: RequestLog;
  resilience: ResilienceRepo;
  leases: LeaseRepo;
  sessionPins: SessionPinRepo;
  /** Anthropic subscription lane and limit-reset state per connection. */
  subscription: SubscriptionRepo;
  /** Gateway API keys, stored hashed. */
  gatewayKeys: GatewayKeyRepo;
  /** Usage per minute (written in batches by usage/rollup.ts). */
  usage: UsageRollupRepo;
  /** Request-shape fixes learnt from providers' 400s. */
  learnedFixes: LearnedFixRepo;
  /** The last quota each connection's upstream announced (written in batches by routing). */
  quotas: QuotaRepo;
  /** The web search backend (`webSearch`), its key sealed. */
  webSearch: WebSearchRepo;
  /** Flushes the request log, then closes the database. Safe to call more than once. */
  close(): void;
}

export function openStore(file: string, opts: StoreOptions = {}): Store {
  const db = openDatabase(file);
  try {
    const requestLog = createRequestLog(db, opts.requestLog);
    let closed = false;
    const settings = createSettingsRepo(db);
    return {
      db,
      providers: createProviderRepo(db),
      connections: createConnectionRepo(db, opts.connections),
      combos: createComboRepo(db),
      settings,
      requestLog,
      resilience: createResilienceRepo(db),
      leases: createLeaseRepo(db),
      sessionPins: createSessionPinRepo(db),
      subscription: createSubscriptionRepo(db),
      gatewayKeys: createGatewayKeyRepo(db),
      usage: createUsageRollupRepo(db),
      learnedFixes: createLearnedFixRepo(db),
      quotas: createQuotaRepo(db),
      webSearch: createWebSearchRepo(settings, opts.connections?.secretCodec, (err) =>
        opts.connections?.onSecretError?.('webSearch', err),
      ),
      close() {
        if (closed) return;
        closed = true;
        try {
          requestLog.close();
        } finally {
          if (db.open) db.close();
        }
      },
    };
  } catch (err) {
    db.close();
    throw err;
  }
}

export type { ComboRecord, ComboRepo } from './combos';
export type { ConnectionRecord, ConnectionRepo } from './connections';
export { openDatabase } from './database';
export type { Db } from './db';
export type { GatewayKeyRecord, GatewayKeyRepo } from './gateway-keys';
export type { LearnedFixRepo, LearnedFixRow } from './learned-fixes';
export type { LeaseRepo } from './leases';
export {
  LATEST_SCHEMA_VERSION,
  type Migration,
  migrate,
  migrations,
  NewerSchemaError,
} from './migrations';
export type { ProviderRecord, ProviderRepo } from './providers';
export type { QuotaRepo, QuotaRow } from './quotas';
export type {
  RecentQuery,
  RequestLog,
  RequestLogDetailRow,
  RequestLogOptions,
  RequestLogStats,
} from './request-log';
export type { ResilienceChanges, ResilienceRepo } from './resilience';
export type { SecretCodec } from './secret-codec';
export type { SessionPin, SessionPinRepo } from './session-pins';
export type { SettingsRepo } from './settings';
export type { SubscriptionRepo, SubscriptionRow } from './subscription';
export type { SessionTotals, UsageBucket, UsageDims, UsageRollupRepo } from './usage-rollups';
export type { WebSearchRepo } from './web-search';
