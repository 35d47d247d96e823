import type { KeyLimits } from './config';

// ---------------------------------------------------------------------------
// Gateway keys and usage (`/api/keys`, `/api/usage`)
// ---------------------------------------------------------------------------

/** What a key has used in each of its limits' current windows. */
export interface KeySpend {
  requestsThisMinute: number;
  tokensToday: number;
  usdToday: number;
  usdThisMonth: number;
}

/** A gateway API key as the admin API shows it: never its secret, only its first characters. */
export interface GatewayKeyView {
  id: string;
  name: string;
  /** The first characters of the secret, to tell keys apart. */
  prefix: string;
  scopes: string[];
  allowedConnections: string[];
  limits: KeyLimits;
  /** `config`: imported from `gateway.apiKeys` at start; `api`: created through the admin API. */
  source: 'config' | 'api';
  createdAt: number;
  revokedAt: number | null;
  spend: KeySpend;
}

/** `POST /api/keys` and `PATCH /api/keys/{id}` (every field optional on PATCH). */
export interface GatewayKeyInput {
  name?: string;
  scopes?: string[];
  allowedConnections?: string[];
  limits?: KeyLimits;
}

/** The answer of creating or rotating a key: the only time its secret is returned. */
export interface CreatedGatewayKey {
  id: string;
  name: string;
  key: string;
}

export type UsageGroupBy = 'model' | 'provider' | 'connection' | 'key' | 'combo' | 'session';

export interface UsageTotals {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  costUsd: number;
}

export interface UsageRow extends UsageTotals {
  group: string;
  /**
   * Prompt-cache hit rate: cache-read tokens ÷ input tokens (0-1), null without input. Per
   * connection or session it shows when routing breaks a client's cache. Totals only, not in
   * `series`.
   */
  cacheHitRate?: number | null;
}

/** One time bucket of one group (`GET /api/usage?step=…`). */
export interface UsagePoint extends UsageRow {
  /** Start of the bucket, epoch ms. */
  at: number;
}

export interface UsageQuery {
  /** ISO time or a duration back from now (`30m`, `1h`, `7d`); default `24h`. */
  since?: string;
  by?: UsageGroupBy;
  /** With a step (`1m`, `1h`, `1d`), the answer also has `series`, one point per bucket. */
  step?: string;
}

export interface UsageReport {
  since: number;
  rows: UsageRow[];
  series?: UsagePoint[];
}

/** Why a session's turn read far less from the prompt cache than the turn before left in it. */
export type CacheLossReason = 'moved' | 'prefix_changed' | 'ttl_expired' | 'unknown';

/** One answered turn of a session, as the cache watch saw it (docs/usage.md). */
export interface SessionCacheTurn {
  /** 1 for the session's first turn the gateway saw. */
  turn: number;
  at: number;
  connection: string;
  /** All prompt tokens, cache reads and writes included. */
  promptTokens: number;
  readTokens: number;
  /** Set on the turns where the cache was lost (a `cache.lost` event). */
  lost: CacheLossReason | null;
  detail?: string;
}

/** `GET /api/usage/cache`: a session's prompt-cache hit rate, turn by turn. */
export interface SessionCacheView {
  session: string;
  /** The model the client asked for: a session is watched per model. */
  model: string;
  turns: number;
  lastAt: number;
  /** Cache-read share of the prompt tokens over the kept turns (0-1). */
  hitRate: number;
  /** The last turns, oldest first. */
  history: SessionCacheTurn[];
}
