import type { GatewayApiKeyConfig, GatewayConfig, GatewayKeyInput, KeyLimits } from '../contract';
import { ValidationError } from '../validation-error';
import { type TimeoutRanges, validateTimeouts } from './timeouts';
import { array, identifier, integer, object, optional, string, uniqueBy } from './values';

const KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;
const KEY_NAME_HINT =
  'must be 1-64 letters, digits, spaces, dots, dashes or underscores, starting with a letter or digit';

/** `limits` of a gateway key: each optional, none negative. */
export function validateKeyLimits(value: unknown, field: string): KeyLimits {
  const o = object(value, field, ['requestsPerMinute', 'tokensPerDay', 'usdPerDay', 'usdPerMonth']);
  const out: KeyLimits = {};
  const rpm = optional(o.requestsPerMinute, (v) =>
    integer(v, `${field}.requestsPerMinute`, { min: 1, max: 1_000_000 }),
  );
  if (rpm !== undefined) out.requestsPerMinute = rpm;
  const tpd = optional(o.tokensPerDay, (v) =>
    integer(v, `${field}.tokensPerDay`, { min: 1, max: Number.MAX_SAFE_INTEGER }),
  );
  if (tpd !== undefined) out.tokensPerDay = tpd;
  for (const name of ['usdPerDay', 'usdPerMonth'] as const) {
    const usd = optional(o[name], (v) => {
      if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > 1_000_000_000) {
        throw new ValidationError(`${field}.${name}`, 'must be a number above 0 (USD)');
      }
      return v;
    });
    if (usd !== undefined) out[name] = usd;
  }
  return out;
}

/** `POST /api/keys` (name required) and `PATCH /api/keys/{id}` (every field optional). */
export function validateKeyInput(value: unknown, requireName: boolean): GatewayKeyInput {
  const o = object(value, '', ['name', 'scopes', 'allowedConnections', 'limits']);
  const out: GatewayKeyInput = {};
  const name = requireName ? keyName(o.name, 'name') : optional(o.name, (v) => keyName(v, 'name'));
  if (name !== undefined) out.name = name;
  Object.assign(out, keyAccess(o, ''));
  return out;
}

function keyName(value: unknown, field: string): string {
  return string(value, field, { pattern: KEY_NAME, hint: KEY_NAME_HINT });
}

function keyAccess(
  o: Record<string, unknown>,
  field: string,
): Pick<GatewayKeyInput, 'scopes' | 'allowedConnections' | 'limits'> {
  const at = (name: string) => (field ? `${field}.${name}` : name);
  const out: Pick<GatewayKeyInput, 'scopes' | 'allowedConnections' | 'limits'> = {};
  const scopes = optional(o.scopes, (v) =>
    array(v, at('scopes')).map((s, i) => string(s, `${at('scopes')}[${i}]`)),
  );
  if (scopes) out.scopes = scopes;
  const allowed = optional(o.allowedConnections, (v) =>
    array(v, at('allowedConnections')).map((s, i) =>
      identifier(s, `${at('allowedConnections')}[${i}]`),
    ),
  );
  if (allowed) out.allowedConnections = allowed;
  const limits = optional(o.limits, (v) => validateKeyLimits(v, at('limits')));
  if (limits) out.limits = limits;
  return out;
}

function validateApiKey(value: unknown, field: string): GatewayApiKeyConfig {
  const o = object(value, field, ['name', 'key', 'scopes', 'allowedConnections', 'limits']);
  const key = string(o.key, `${field}.key`);
  if (key.length < 16) throw new ValidationError(`${field}.key`, 'must be at least 16 characters');
  return { name: string(o.name, `${field}.name`), key, ...keyAccess(o, field) };
}

export function validateGateway(
  value: unknown,
  field: string,
  timeoutRanges: TimeoutRanges,
): GatewayConfig {
  const o = object(value, field, [
    'host',
    'port',
    'apiKeys',
    'maxBodyBytes',
    'shutdownGraceMs',
    'timeouts',
  ]);
  const out: GatewayConfig = {};
  const host = optional(o.host, (v) => string(v, `${field}.host`));
  if (host !== undefined) out.host = host;
  const port = optional(o.port, (v) => integer(v, `${field}.port`, { min: 0, max: 65_535 }));
  if (port !== undefined) out.port = port;
  if (o.apiKeys !== undefined) {
    const keys = array(o.apiKeys, `${field}.apiKeys`).map((k, i) =>
      validateApiKey(k, `${field}.apiKeys[${i}]`),
    );
    uniqueBy(keys, (k) => k.name, `${field}.apiKeys`);
    out.apiKeys = keys;
  }
  const maxBody = optional(o.maxBodyBytes, (v) =>
    integer(v, `${field}.maxBodyBytes`, { min: 1024, max: 1024 * 1024 * 1024 }),
  );
  if (maxBody !== undefined) out.maxBodyBytes = maxBody;
  const grace = optional(o.shutdownGraceMs, (v) =>
    integer(v, `${field}.shutdownGraceMs`, { min: 0, max: 10 * 60_000 }),
  );
  if (grace !== undefined) out.shutdownGraceMs = grace;
  const timeouts = optional(o.timeouts, (v) =>
    validateTimeouts(v, `${field}.timeouts`, timeoutRanges),
  );
  if (timeouts !== undefined) out.timeouts = timeouts;
  return out;
}
