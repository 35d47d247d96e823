import type { LockoutScope } from '../../../../shared/contract';
import type { ErrorReason } from '../../settings/resilience-defaults';
import type { ConnectionFailure } from './connection-cooldown';
import { announcedRetryMs, type Headers } from './retry-after';

/**
 * The error pipeline of RESILIENCE.md §7: restatement first, then rules (operator rules, then
 * built-in rules behind their allowlists), then generic classification by status and text.
 * Pure: the caller applies the resulting effects to breaker, cooldown and lockout.
 */

export type RuleScope = 'model' | 'provider' | 'connection';

export interface RestatementRule {
  id: string;
  fromStatuses: number[];
  toStatus: number;
  textMarkers: string[];
  /** Any of these in the body stops the rule: a permanent error keeps its status. */
  excludeMarkers?: string[];
  /** Retry-After the client is told (not the internal cooldown). */
  defaultRetryAfterMs?: number;
}

export interface ErrorRule {
  id: string;
  status?: number | number[];
  textMarkers?: string[];
  /** Header name → substring its value must contain. */
  headers?: Record<string, string>;
  reason: ErrorReason;
  scope: RuleScope;
  cooldownMs?: number;
}

/** A rule an operator added in settings (`providerErrorRules`): it names its provider. */
export interface OperatorRule extends ErrorRule {
  provider: string;
}

/** Built-in restatements, keyed by provider id. */
const RESTATEMENTS: Record<string, RestatementRule[]> = {
  agentrouter: [
    {
      id: 'agentrouter-quota-403',
      fromStatuses: [403, 400],
      toStatus: 429,
      textMarkers: ['用户额度不足', '额度不足'],
      excludeMarkers: ['无权访问模型'],
      defaultRetryAfterMs: 60_000,
    },
  ],
};

const SIX_HOURS = 6 * 3_600_000;

/** Built-in rules, keyed by provider id; checked in order, before the generic handling. */
const RULES: Record<string, ErrorRule[]> = {
  agentrouter: [
    {
      id: 'agentrouter-no-model-access',
      textMarkers: ['无权访问模型'],
      reason: 'auth_error',
      scope: 'model',
      cooldownMs: SIX_HOURS,
    },
    {
      id: 'agentrouter-quota',
      textMarkers: ['用户额度不足', '额度不足'],
      reason: 'quota_exhausted',
      scope: 'connection',
    },
  ],
};

// Matching body text and honouring a rule's scope are opt-in per provider, so every other
// provider's default path stays exactly the same. Extending either is a one-line change.
const TEXT_MATCH_PROVIDERS = new Set(['agentrouter']);
const SCOPE_PROVIDERS = new Set(['agentrouter']);

/** Provider families whose free tier limits by IP (egress-IP bucketed lock). */
const EGRESS_BUCKET_FAMILIES = ['opencode'];

export function egressFamilyOf(providerId: string): string | null {
  return (
    EGRESS_BUCKET_FAMILIES.find((f) => providerId === f || providerId.startsWith(`${f}-`)) ?? null
  );
}

const SUBSCRIPTION_QUOTA =
  /(monthly|weekly|daily) (usage )?limit|usage limit (reached|exceeded)|subscription quota|plan limit reached|quota (has been )?(reached|exhausted)/i;
const CREDITS =
  /credit balance is too low|insufficient[_ ]credits|out of credits|insufficient_quota|check your plan and billing|billing (details|hard limit)|no credits? (left|remaining)/i;
const BAN =
  /account (has been |is )?(suspended|banned|disabled|deactivated)|organization (has been )?(suspended|disabled)|violat(ed|ion) of (our|the) (usage|terms)/i;
const REQUEST_REFUSED = /request not allowed|request_rejected/i;
const EXPIRED =
  /expired|invalid[_ ](api[_ ])?key|incorrect api key|invalid x-api-key|authentication_error|unauthori[sz]ed/i;
const MODEL_ACCESS =
  /model[_ ]not[_ ]found|does not exist|do(es)? not have access to (the )?model|not (available|supported) for (this|your) (account|plan)|无权访问模型|unknown model|invalid model/i;
const CONTEXT_OVERFLOW =
  /context[_ ]length|maximum context|context window|prompt is too long|too many tokens|reduce the length/i;

export interface UpstreamError {
  provider: string;
  status: number;
  headers: Headers;
  bodyText: string;
}

export interface Classification {
  /** Status the client sees (after restatement). */
  status: number;
  /** Retry-After for the client from a restatement rule. */
  clientRetryAfterMs: number | null;
  restatedBy: string | null;
  reason: ErrorReason;
  ruleId: string | null;
  /** Counts toward the provider's breaker (408/5xx). */
  breakerFailure: boolean;
  /** The connection-level effect, if any. */
  connection: ConnectionFailure | null;
  /**
   * A model lockout: `{}` derives scope and duration from the status (applies only when
   * lockout is on and the status is listed); an explicit scope or cooldown always applies.
   */
  lockout: { scope?: LockoutScope; cooldownMs?: number } | null;
  /**
   * Which of `lockout` and `connection` wins when both are set: `lockout` locks the model when
   * lockout applies and cools the connection otherwise; `connection` cools the connection and
   * locks the model only where cooling is disabled for it.
   */
  prefer: 'lockout' | 'connection';
  /** Another candidate may still serve the request. */
  failover: boolean;
  egressBucket: boolean;
}

function statusMatches(rule: { status?: number | number[] }, status: number): boolean {
  if (rule.status === undefined) return true;
  return Array.isArray(rule.status) ? rule.status.includes(status) : rule.status === status;
}

function headersMatch(rule: ErrorRule, headers: Headers): boolean {
  if (!rule.headers) return true;
  return Object.entries(rule.headers).every(([name, want]) => {
    const v = headers[name.toLowerCase()];
    const value = Array.isArray(v) ? v.join(',') : v;
    return value?.toLowerCase().includes(want.toLowerCase()) ?? false;
  });
}

function textMatches(markers: string[] | undefined, text: string): boolean {
  return markers === undefined || markers.some((m) => text.includes(m));
}

export function restate(
  e: UpstreamError,
  now: number,
): { status: number; retryAfterMs: number | null; ruleId: string | null } {
  for (const rule of RESTATEMENTS[e.provider] ?? []) {
    if (!rule.fromStatuses.includes(e.status)) continue;
    if (!rule.textMarkers.some((m) => e.bodyText.includes(m))) continue;
    if (rule.excludeMarkers?.some((m) => e.bodyText.includes(m))) continue;
    const announced = announcedRetryMs(e.headers, e.bodyText, now);
    return {
      status: rule.toStatus,
      retryAfterMs: announced ?? rule.defaultRetryAfterMs ?? null,
      ruleId: rule.id,
    };
  }
  return { status: e.status, retryAfterMs: null, ruleId: null };
}

function findRule(
  e: UpstreamError,
  status: number,
  operatorRules: readonly OperatorRule[],
): { rule: ErrorRule; honourScope: boolean } | null {
  for (const rule of operatorRules) {
    if (rule.provider !== e.provider) continue;
    if (
      statusMatches(rule, status) &&
      headersMatch(rule, e.headers) &&
      textMatches(rule.textMarkers, e.bodyText)
    ) {
      return { rule, honourScope: true };
    }
  }
  const textAllowed = TEXT_MATCH_PROVIDERS.has(e.provider);
  for (const rule of RULES[e.provider] ?? []) {
    if (rule.textMarkers && !textAllowed) continue;
    if (
      statusMatches(rule, status) &&
      headersMatch(rule, e.headers) &&
      textMatches(rule.textMarkers, e.bodyText)
    ) {
      return { rule, honourScope: SCOPE_PROVIDERS.has(e.provider) };
    }
  }
  return null;
}

const BASE: Omit<Classification, 'status' | 'clientRetryAfterMs' | 'restatedBy' | 'reason'> = {
  ruleId: null,
  breakerFailure: false,
  connection: null,
  lockout: null,
  prefer: 'lockout',
  failover: false,
  egressBucket: false,
};

function fromRule(
  rule: ErrorRule,
  honourScope: boolean,
  status: number,
  announced: number | null,
): Partial<Classification> {
  const cooldownMs = rule.cooldownMs;
  if (rule.reason === 'credits_exhausted') {
    return { connection: { kind: 'terminal', status: 'credits_exhausted' }, failover: true };
  }
  if (rule.reason === 'banned')
    return { connection: { kind: 'terminal', status: 'banned' }, failover: true };
  const scope: RuleScope | null = honourScope ? rule.scope : null;
  if (scope === 'connection') {
    // Never terminal from a rule: a connection-wide quota is a temporary cooldown.
    if (rule.reason === 'permanent') return { failover: true };
    return {
      connection: { kind: 'cooldown', announcedMs: announced, ruleCooldownMs: cooldownMs ?? null },
      lockout: { scope: 'model', ...(cooldownMs !== undefined ? { cooldownMs } : {}) },
      prefer: 'connection',
      failover: true,
    };
  }
  if (scope === 'model') {
    return {
      lockout: { scope: 'model', ...(cooldownMs !== undefined ? { cooldownMs } : {}) },
      failover: true,
    };
  }
  if (scope === 'provider') return { breakerFailure: true, failover: true };
  // Scope not honoured: the rule names the reason; the status decides the rest.
  return generic(status, '', announced, rule.reason);
}

function generic(
  status: number,
  text: string,
  announced: number | null,
  forcedReason?: ErrorReason,
): Partial<Classification> & { reason: ErrorReason } {
  if (status === 408 || status === 500 || status === 502 || status === 503 || status === 504) {
    return {
      reason: forcedReason ?? 'server_error',
      breakerFailure: true,
      lockout: {},
      failover: true,
    };
  }
  if (status >= 500) return { reason: forcedReason ?? 'server_error', failover: true };
  if (
    CREDITS.test(text) &&
    (status === 400 || status === 402 || status === 403 || status === 429)
  ) {
    return {
      reason: 'credits_exhausted',
      connection: { kind: 'terminal', status: 'credits_exhausted' },
      failover: true,
    };
  }
  if (status === 429) {
    if (SUBSCRIPTION_QUOTA.test(text) || forcedReason === 'quota_exhausted') {
      return {
        reason: 'quota_exhausted',
        connection: { kind: 'cooldown', announcedMs: announced, ruleCooldownMs: 3_600_000 },
        lockout: {},
        failover: true,
        egressBucket: true,
      };
    }
    return {
      reason: forcedReason ?? 'rate_limit_exceeded',
      connection: { kind: 'cooldown', announcedMs: announced },
      lockout: {},
      failover: true,
      egressBucket: true,
    };
  }
  if (status === 401) {
    return { reason: 'auth_error', connection: { kind: 'expired_credentials' }, failover: true };
  }
  if (status === 403) {
    if (BAN.test(text))
      return {
        reason: 'banned',
        connection: { kind: 'terminal', status: 'banned' },
        failover: true,
      };
    if (REQUEST_REFUSED.test(text))
      return { reason: 'request_rejected', connection: { kind: 'refusal' }, failover: true };
    if (EXPIRED.test(text) && /expired/i.test(text)) {
      return { reason: 'auth_error', connection: { kind: 'expired_credentials' }, failover: true };
    }
    return {
      reason: forcedReason ?? 'auth_error',
      connection: { kind: 'cooldown', announcedMs: announced },
      lockout: {},
      failover: true,
    };
  }
  if (status === 402) {
    return {
      reason: forcedReason ?? 'quota_exhausted',
      connection: { kind: 'cooldown', announcedMs: announced },
      lockout: {},
      failover: true,
    };
  }
  if (status === 404) return { reason: 'model_not_found', lockout: {}, failover: true };
  if (status === 400 || status === 422) {
    if (CONTEXT_OVERFLOW.test(text)) return { reason: 'context_overflow' };
    if (MODEL_ACCESS.test(text))
      return { reason: 'model_access', lockout: { scope: 'model' }, failover: true };
    // A plain bad request never penalises anyone.
    return { reason: 'bad_request' };
  }
  return { reason: forcedReason ?? 'bad_request' };
}

export function classify(
  e: UpstreamError,
  operatorRules: readonly OperatorRule[],
  now: number,
): Classification {
  const restated = restate(e, now);
  const announced = announcedRetryMs(e.headers, e.bodyText, now);
  const found = findRule(e, restated.status, operatorRules);
  const head = {
    status: restated.status,
    clientRetryAfterMs: restated.retryAfterMs,
    restatedBy: restated.ruleId,
  };
  if (found) {
    const effects = fromRule(found.rule, found.honourScope, restated.status, announced);
    return { ...BASE, ...head, reason: found.rule.reason, ...effects, ruleId: found.rule.id };
  }
  const g = generic(restated.status, e.bodyText, announced);
  return { ...BASE, ...head, ...g };
}

/** The network-failure classification (refused, reset, DNS, timeouts): a provider failure. */
export function networkFailure(): Omit<Classification, 'status'> {
  return {
    ...BASE,
    clientRetryAfterMs: null,
    restatedBy: null,
    reason: 'server_error',
    breakerFailure: true,
    failover: true,
  };
}
