import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Classification,
  classify,
  egressFamilyOf,
  networkFailure,
  type OperatorRule,
  restate,
  type UpstreamError,
} from '../../src/main/engine/resilience/health/error-rules';
import type { Headers } from '../../src/main/engine/resilience/health/retry-after';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const QUOTA = '{"error":{"message":"用户额度不足, 剩余额度: $0.00"}}';
const QUOTA_SHORT = '{"error":{"message":"额度不足"}}';
const NO_ACCESS = '{"error":{"message":"无权访问模型 claude-opus-4"}}';

function err(
  provider: string,
  status: number,
  bodyText = '',
  headers: Headers = {},
): UpstreamError {
  return { provider, status, headers, bodyText };
}

function c(e: UpstreamError, rules: OperatorRule[] = []): Classification {
  return classify(e, rules, NOW);
}

/** No penalty anywhere: no breaker failure, no connection effect, no lockout. */
function expectNoPenalty(x: Classification): void {
  expect(x.breakerFailure).toBe(false);
  expect(x.connection).toBeNull();
  expect(x.lockout).toBeNull();
}

describe('§7 restatement runs first: agentrouter 403 (or 400) with 额度不足 → 429 with a 60 s Retry-After for the client', () => {
  for (const status of [403, 400]) {
    for (const body of [QUOTA, QUOTA_SHORT]) {
      it(`${status} ${body.slice(25, 31)} → 429, 60 s`, () => {
        expect(restate(err('agentrouter', status, body), NOW)).toEqual({
          status: 429,
          retryAfterMs: 60_000,
          ruleId: 'agentrouter-quota-403',
        });
        const x = c(err('agentrouter', status, body));
        expect(x.status).toBe(429);
        expect(x.clientRetryAfterMs).toBe(60_000);
        expect(x.restatedBy).toBe('agentrouter-quota-403');
      });
    }
  }

  it('an upstream-announced retry time replaces the 60 s default for the client', () => {
    expect(restate(err('agentrouter', 403, QUOTA, { 'retry-after': '30' }), NOW).retryAfterMs).toBe(
      30_000,
    );
  });

  it('`excludeMarkers` (无权访问模型) stop the rule: a permanent error keeps its status', () => {
    const body = `${NO_ACCESS} 额度不足`;
    expect(restate(err('agentrouter', 403, body), NOW)).toEqual({
      status: 403,
      retryAfterMs: null,
      ruleId: null,
    });
    const x = c(err('agentrouter', 403, body));
    expect(x.status).toBe(403);
    expect(x.clientRetryAfterMs).toBeNull();
    expect(x.restatedBy).toBeNull();
  });

  it('only the listed statuses are restated; without a marker nothing is', () => {
    expect(restate(err('agentrouter', 401, QUOTA), NOW).status).toBe(401);
    expect(restate(err('agentrouter', 500, QUOTA), NOW).status).toBe(500);
    expect(restate(err('agentrouter', 403, 'forbidden'), NOW).status).toBe(403);
  });

  it('restatement is per provider: another provider sending 额度不足 keeps its status', () => {
    expect(restate(err('openai', 403, QUOTA), NOW)).toEqual({
      status: 403,
      retryAfterMs: null,
      ruleId: null,
    });
    expect(restate(err('agentrouter-eu', 403, QUOTA), NOW).status).toBe(403);
  });
});

describe('§7 built-in rules for agentrouter', () => {
  it('额度不足 / 用户额度不足 → quota_exhausted, scope connection: cool the connection (temporary), lock the model only as fallback', () => {
    for (const body of [QUOTA, QUOTA_SHORT]) {
      const x = c(err('agentrouter', 403, body));
      expect(x.reason).toBe('quota_exhausted');
      expect(x.ruleId).toBe('agentrouter-quota');
      expect(x.prefer).toBe('connection');
      // A temporary cooldown with the normal progressive backoff, never a terminal state.
      expect(x.connection).toEqual({ kind: 'cooldown', announcedMs: null, ruleCooldownMs: null });
      expect(x.lockout).toEqual({ scope: 'model' });
      expect(x.breakerFailure).toBe(false);
      expect(x.failover).toBe(true);
    }
  });

  it('the connection cooldown takes an announced reset when there is one', () => {
    const x = c(err('agentrouter', 403, QUOTA, { 'retry-after': '120' }));
    expect(x.connection).toEqual({ kind: 'cooldown', announcedMs: 120_000, ruleCooldownMs: null });
    expect(x.clientRetryAfterMs).toBe(120_000);
  });

  it('a 429 that already says 额度不足 takes the same rule', () => {
    const x = c(err('agentrouter', 429, QUOTA));
    expect(x.restatedBy).toBeNull();
    expect(x.reason).toBe('quota_exhausted');
    expect(x.prefer).toBe('connection');
  });

  it('无权访问模型 → auth_error, scope model, declared 6 h, before the generic 403; the connection stays active', () => {
    for (const status of [403, 400]) {
      const x = c(err('agentrouter', status, NO_ACCESS));
      expect(x.status).toBe(status);
      expect(x.reason).toBe('auth_error');
      expect(x.ruleId).toBe('agentrouter-no-model-access');
      expect(x.lockout).toEqual({ scope: 'model', cooldownMs: 6 * 3_600_000 });
      expect(x.connection).toBeNull();
      expect(x.breakerFailure).toBe(false);
      expect(x.failover).toBe(true);
    }
  });

  it('无权访问模型 wins over 额度不足 in the same body', () => {
    const x = c(err('agentrouter', 403, `${NO_ACCESS} 额度不足`));
    expect(x.ruleId).toBe('agentrouter-no-model-access');
  });

  it('agentrouter errors without a marker get the generic handling', () => {
    expectNoPenalty(c(err('agentrouter', 400, 'bad json')));
    expect(c(err('agentrouter', 503)).breakerFailure).toBe(true);
    expect(c(err('agentrouter', 401)).connection).toEqual({ kind: 'expired_credentials' });
  });
});

describe('§7 text matching and scope are opt-in per provider; the default path for every other provider stays the same', () => {
  it('another provider sending 额度不足 gets the generic handling (403 → connection cooldown + family lockout)', () => {
    const x = c(err('openai', 403, QUOTA));
    expect(x.ruleId).toBeNull();
    expect(x.status).toBe(403);
    expect(x.reason).toBe('auth_error');
    expect(x.connection).toEqual({ kind: 'cooldown', announcedMs: null });
    expect(x.lockout).toEqual({});
    expect(x.prefer).toBe('lockout');
  });

  it('another provider sending 无权访问模型 with a 403 gets no 6 h model lockout', () => {
    const x = c(err('glm', 403, NO_ACCESS));
    expect(x.ruleId).toBeNull();
    expect(x.lockout).toEqual({});
  });

  it('another provider sending 额度不足 with a 400 is a plain 400 (no penalty, no failover)', () => {
    const x = c(err('glm', 400, QUOTA));
    expect(x.reason).toBe('bad_request');
    expectNoPenalty(x);
    expect(x.failover).toBe(false);
  });
});

describe('§7 operator rules (`providerErrorRules`) bypass both allowlists', () => {
  const textRule: OperatorRule = {
    provider: 'glm',
    id: 'glm-quota',
    status: 403,
    textMarkers: ['余额不足'],
    reason: 'quota_exhausted',
    scope: 'connection',
    cooldownMs: 600_000,
  };

  it('text markers and scope are honoured for any provider the rule names', () => {
    const x = c(err('glm', 403, '余额不足'), [textRule]);
    expect(x.ruleId).toBe('glm-quota');
    expect(x.reason).toBe('quota_exhausted');
    expect(x.prefer).toBe('connection');
    expect(x.connection).toEqual({ kind: 'cooldown', announcedMs: null, ruleCooldownMs: 600_000 });
    expect(x.lockout).toEqual({ scope: 'model', cooldownMs: 600_000 });
  });

  it('the rule applies only to its provider, status and text', () => {
    expect(c(err('openai', 403, '余额不足'), [textRule]).ruleId).toBeNull();
    expect(c(err('glm', 429, '余额不足'), [textRule]).ruleId).toBeNull();
    expect(c(err('glm', 403, 'other'), [textRule]).ruleId).toBeNull();
  });

  it('a status list, headers (case-insensitive name and value substring), and scope model / provider', () => {
    const rules: OperatorRule[] = [
      {
        provider: 'glm',
        id: 'h',
        status: [400, 422],
        headers: { 'X-Error-Kind': 'Model' },
        reason: 'model_access',
        scope: 'model',
      },
      {
        provider: 'glm',
        id: 'p',
        status: 400,
        textMarkers: ['upstream overloaded'],
        reason: 'server_error',
        scope: 'provider',
      },
    ];
    const h = c(err('glm', 422, '', { 'x-error-kind': 'model-gone' }), rules);
    expect(h.ruleId).toBe('h');
    expect(h.lockout).toEqual({ scope: 'model' });
    expect(h.connection).toBeNull();
    expect(c(err('glm', 422, '', { 'x-error-kind': 'other' }), rules).ruleId).toBeNull();
    const p = c(err('glm', 400, 'upstream overloaded'), rules);
    expect(p.ruleId).toBe('p');
    expect(p.breakerFailure).toBe(true);
    expect(p.failover).toBe(true);
  });

  it('rules for HTTP 400 work too', () => {
    const rule: OperatorRule = {
      provider: 'x',
      id: 'r400',
      status: 400,
      textMarkers: ['quota'],
      reason: 'quota_exhausted',
      scope: 'connection',
    };
    const x = c(err('x', 400, 'quota gone'), [rule]);
    expect(x.status).toBe(400);
    expect(x.connection).toEqual({ kind: 'cooldown', announcedMs: null, ruleCooldownMs: null });
  });

  it('operator rules come before built-in rules of the same provider', () => {
    const rule: OperatorRule = {
      provider: 'agentrouter',
      id: 'mine',
      textMarkers: ['额度不足'],
      reason: 'rate_limit_exceeded',
      scope: 'model',
    };
    expect(c(err('agentrouter', 403, QUOTA), [rule]).ruleId).toBe('mine');
  });

  it('scope connection: never terminal — `permanent` fails over without cooling; credits and bans are their own terminal reasons', () => {
    const base = { provider: 'x', status: 403 } as const;
    const perm = c(err('x', 403, ''), [
      { ...base, id: 'perm', reason: 'permanent', scope: 'connection' },
    ]);
    expect(perm.connection).toBeNull();
    expect(perm.lockout).toBeNull();
    expect(perm.failover).toBe(true);
    const credits = c(err('x', 403, ''), [
      { ...base, id: 'cr', reason: 'credits_exhausted', scope: 'model' },
    ]);
    expect(credits.connection).toEqual({ kind: 'terminal', status: 'credits_exhausted' });
    const ban = c(err('x', 403, ''), [
      { ...base, id: 'ban', reason: 'banned', scope: 'connection' },
    ]);
    expect(ban.connection).toEqual({ kind: 'terminal', status: 'banned' });
  });
});

describe('§1/§7 generic classification: 408, 500, 502, 503, 504 and network failures are provider (breaker) failures', () => {
  for (const status of [408, 500, 502, 503, 504]) {
    it(`${status} → breaker failure, exact lockout candidate, failover`, () => {
      const x = c(err('openai', status, 'upstream error'));
      expect(x.reason).toBe('server_error');
      expect(x.breakerFailure).toBe(true);
      expect(x.connection).toBeNull();
      expect(x.lockout).toEqual({});
      expect(x.failover).toBe(true);
    });
  }

  it('other 5xx fail over without counting toward the breaker', () => {
    for (const status of [501, 505, 529]) {
      const x = c(err('openai', status));
      expect(x.breakerFailure).toBe(false);
      expect(x.failover).toBe(true);
    }
  });

  it('account-level errors (401, 403, 429) never count toward the breaker', () => {
    for (const status of [400, 401, 402, 403, 404, 409, 422, 429]) {
      expect(c(err('openai', status, 'x')).breakerFailure).toBe(false);
    }
  });

  it('a network failure (refused, reset, DNS, timeout) is a provider failure', () => {
    const n = networkFailure();
    expect(n.breakerFailure).toBe(true);
    expect(n.failover).toBe(true);
    expect(n.connection).toBeNull();
    expect(n.lockout).toBeNull();
    expect(n.reason).toBe('server_error');
  });
});

describe('§7 generic 429: subscription quota text → quota_exhausted with a 1 h cooldown; any other 429 → rate_limit_exceeded', () => {
  for (const text of [
    'You have reached your monthly usage limit',
    'Weekly limit reached',
    'usage limit reached for your plan',
    'Your subscription quota has been used',
    'quota has been exhausted',
  ]) {
    it(`"${text}" → quota_exhausted, 1 h`, () => {
      const x = c(err('openai', 429, text));
      expect(x.reason).toBe('quota_exhausted');
      expect(x.connection).toEqual({
        kind: 'cooldown',
        announcedMs: null,
        ruleCooldownMs: 3_600_000,
      });
      expect(x.lockout).toEqual({});
      expect(x.failover).toBe(true);
      expect(x.egressBucket).toBe(true);
    });
  }

  it('an announced reset travels with the quota cooldown (the cooldown prefers it)', () => {
    const x = c(err('openai', 429, 'monthly usage limit', { 'retry-after': '600' }));
    expect(x.connection).toEqual({
      kind: 'cooldown',
      announcedMs: 600_000,
      ruleCooldownMs: 3_600_000,
    });
  });

  it('any other 429 → rate_limit_exceeded with the announced reset (or the backoff)', () => {
    const plain = c(err('openai', 429, 'Too many requests'));
    expect(plain.reason).toBe('rate_limit_exceeded');
    expect(plain.connection).toEqual({ kind: 'cooldown', announcedMs: null });
    expect(plain.lockout).toEqual({});
    expect(plain.prefer).toBe('lockout');
    expect(plain.egressBucket).toBe(true);
    const hinted = c(err('openai', 429, 'Rate limit reached. Please try again in 20s.'));
    expect(hinted.connection).toEqual({ kind: 'cooldown', announcedMs: 20_000 });
    const headed = c(err('openai', 429, '', { 'x-ratelimit-reset-requests': '1m30s' }));
    expect(headed.connection).toEqual({ kind: 'cooldown', announcedMs: 90_000 });
  });

  it('a 429 that says the account has no credit → credits_exhausted (terminal)', () => {
    const x = c(err('openai', 429, '{"error":{"code":"insufficient_quota"}}'));
    expect(x.reason).toBe('credits_exhausted');
    expect(x.connection).toEqual({ kind: 'terminal', status: 'credits_exhausted' });
  });
});

describe('§2/§7 generic 401 and 403: expired credentials, bans, refusals, credits', () => {
  it('401 → expired_credentials (3 in a row make the connection expired)', () => {
    const x = c(err('openai', 401, 'Incorrect API key provided'));
    expect(x.reason).toBe('auth_error');
    expect(x.connection).toEqual({ kind: 'expired_credentials' });
    expect(x.lockout).toBeNull();
    expect(x.failover).toBe(true);
  });

  it('403 with ban keywords → banned', () => {
    for (const t of [
      'Your account has been suspended',
      'This organization has been disabled',
      'account is banned',
    ]) {
      const x = c(err('anthropic', 403, t));
      expect(x.reason).toBe('banned');
      expect(x.connection).toEqual({ kind: 'terminal', status: 'banned' });
    }
  });

  it('403 "Request not allowed" → request_rejected (a refusal: 3 in a row ban)', () => {
    const x = c(
      err('anthropic', 403, '{"type":"error","error":{"message":"Request not allowed"}}'),
    );
    expect(x.reason).toBe('request_rejected');
    expect(x.connection).toEqual({ kind: 'refusal' });
  });

  it('403 saying the token expired → expired_credentials', () => {
    expect(c(err('anthropic', 403, 'OAuth token has expired')).connection).toEqual({
      kind: 'expired_credentials',
    });
  });

  it('403/400/402 with a credit or billing phrase → credits_exhausted', () => {
    for (const status of [400, 402, 403]) {
      const x = c(err('anthropic', status, 'Your credit balance is too low to access the API'));
      expect(x.reason).toBe('credits_exhausted');
      expect(x.connection).toEqual({ kind: 'terminal', status: 'credits_exhausted' });
    }
  });

  it('any other 403 → connection cooldown plus a lockout candidate (quota/permission)', () => {
    const x = c(err('openai', 403, 'forbidden'));
    expect(x.reason).toBe('auth_error');
    expect(x.connection).toEqual({ kind: 'cooldown', announcedMs: null });
    expect(x.lockout).toEqual({});
  });

  it('402 → quota_exhausted cooldown plus a lockout candidate', () => {
    const x = c(err('openai', 402, 'payment required'));
    expect(x.reason).toBe('quota_exhausted');
    expect(x.connection).toEqual({ kind: 'cooldown', announcedMs: null });
    expect(x.lockout).toEqual({});
  });
});

describe('§3/§7 generic 404 and 400: model lockout, context overflow, plain bad request', () => {
  it('404 → model_not_found, lockout candidate (bare model), no connection penalty', () => {
    const x = c(err('openai', 404, 'The model `gpt-9` does not exist'));
    expect(x.reason).toBe('model_not_found');
    expect(x.lockout).toEqual({});
    expect(x.connection).toBeNull();
    expect(x.failover).toBe(true);
  });

  it('400 matching a model-access pattern → lockout scope model, failover', () => {
    for (const t of [
      'model_not_found',
      'The model `x` does not exist',
      'You do not have access to the model',
      'unknown model: foo',
    ]) {
      const x = c(err('openai', 400, t));
      expect(x.reason).toBe('model_access');
      expect(x.lockout).toEqual({ scope: 'model' });
      expect(x.connection).toBeNull();
      expect(x.breakerFailure).toBe(false);
      expect(x.failover).toBe(true);
    }
  });

  it('400 context overflow → a clear client error, no penalty, no failover', () => {
    for (const t of [
      "This model's maximum context length is 128000 tokens",
      'prompt is too long: 250000 tokens > 200000 maximum',
      'context_length_exceeded',
    ]) {
      const x = c(err('openai', 400, t));
      expect(x.reason).toBe('context_overflow');
      expectNoPenalty(x);
      expect(x.failover).toBe(false);
    }
  });

  it('a plain 400 never penalises a connection or provider, and does not fail over', () => {
    for (const status of [400, 422]) {
      const x = c(err('openai', status, '{"error":{"message":"messages: field required"}}'));
      expect(x.reason).toBe('bad_request');
      expectNoPenalty(x);
      expect(x.failover).toBe(false);
      expect(x.egressBucket).toBe(false);
    }
  });

  it('property: a 400 that matches no rule and no pattern never penalises anyone', () => {
    const safe = fc
      .stringMatching(/^[a-z ,.:{}"]{0,60}$/)
      .filter(
        (s) =>
          !/context|model|exist|token|length|too long|credit|billing|quota|access|invalid|unknown|reduce/i.test(
            s,
          ),
      );
    fc.assert(
      fc.property(
        fc.constantFrom('openai', 'anthropic', 'agentrouter', 'glm'),
        safe,
        (provider, body) => {
          const x = c(err(provider, 400, body));
          expect(x.reason).toBe('bad_request');
          expectNoPenalty(x);
          expect(x.failover).toBe(false);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('§7 egress-IP bucketed lock: allowlisted provider family (opencode)', () => {
  it('opencode and its variants belong to the family; others do not', () => {
    expect(egressFamilyOf('opencode')).toBe('opencode');
    expect(egressFamilyOf('opencode-zen')).toBe('opencode');
    expect(egressFamilyOf('opencodex')).toBeNull();
    expect(egressFamilyOf('openai')).toBeNull();
    expect(egressFamilyOf('my-opencode')).toBeNull();
  });

  it('only 429s classified quota_exhausted or rate_limit_exceeded are egress-bucket candidates', () => {
    expect(c(err('opencode', 429, 'slow down')).egressBucket).toBe(true);
    expect(c(err('opencode', 429, 'daily limit reached')).egressBucket).toBe(true);
    for (const status of [401, 403, 404, 500, 503]) {
      expect(c(err('opencode', status, 'x')).egressBucket).toBe(false);
    }
    expect(c(err('opencode', 429, 'insufficient_quota')).egressBucket).toBe(false);
  });
});
