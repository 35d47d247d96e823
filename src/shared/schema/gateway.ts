import type { GatewayApiKeyConfig, GatewayConfig } from '../contract';
import { ValidationError } from '../validation-error';
import { type TimeoutRanges, validateTimeouts } from './timeouts';
import { array, identifier, integer, object, optional, string, uniqueBy } from './values';

function validateApiKey(value: unknown, field: string): GatewayApiKeyConfig {
  const o = object(value, field, ['name', 'key', 'scopes', 'allowedConnections']);
  const key = string(o.key, `${field}.key`);
  if (key.length < 16) throw new ValidationError(`${field}.key`, 'must be at least 16 characters');
  const out: GatewayApiKeyConfig = { name: string(o.name, `${field}.name`), key };
  const scopes = optional(o.scopes, (v) =>
    array(v, `${field}.scopes`).map((s, i) => string(s, `${field}.scopes[${i}]`)),
  );
  if (scopes) out.scopes = scopes;
  const allowed = optional(o.allowedConnections, (v) =>
    array(v, `${field}.allowedConnections`).map((s, i) =>
      identifier(s, `${field}.allowedConnections[${i}]`),
    ),
  );
  if (allowed) out.allowedConnections = allowed;
  return out;
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
