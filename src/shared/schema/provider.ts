import type { AuthClass, ProviderFormat, ProviderInput } from '../contract';
import { ValidationError } from '../validation-error';
import { checkSubscriptionProvider, validateConnection } from './connection';
import { type TimeoutRanges, validateTimeouts } from './timeouts';
import { array, boolean, identifier, object, oneOf, optional, string, uniqueBy } from './values';

export const FORMATS: readonly ProviderFormat[] = ['openai', 'openai-chat', 'anthropic'];
export const AUTH_CLASSES: readonly AuthClass[] = ['api_key', 'oauth', 'local'];

function validateBaseUrl(value: unknown, field: string): string {
  const raw = string(value, field);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError(field, 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError(field, 'must use http or https');
  }
  if (url.username || url.password) {
    throw new ValidationError(field, 'must not contain credentials; use a connection apiKey');
  }
  if (url.search || url.hash) throw new ValidationError(field, 'must not have a query or fragment');
  return raw.replace(/\/+$/, '');
}

export function validateProvider(
  value: unknown,
  field: string,
  timeoutRanges: TimeoutRanges,
): ProviderInput {
  const o = object(value, field, [
    'id',
    'format',
    'baseUrl',
    'authClass',
    'connections',
    'models',
    'timeouts',
    'enabled',
    'quotaFamilies',
  ]);
  const id = identifier(o.id, `${field}.id`);
  const models = array(o.models ?? [], `${field}.models`).map((m, i) =>
    string(m, `${field}.models[${i}]`),
  );
  const provider: ProviderInput = {
    id,
    format: oneOf(o.format, `${field}.format`, FORMATS),
    baseUrl: validateBaseUrl(o.baseUrl, `${field}.baseUrl`),
    authClass: oneOf(o.authClass ?? 'api_key', `${field}.authClass`, AUTH_CLASSES),
    models: [...new Set(models)],
  };
  if (o.connections !== undefined) {
    const connections = array(o.connections, `${field}.connections`).map((c, i) =>
      validateConnection(c, `${field}.connections[${i}]`),
    );
    uniqueBy(connections, (c) => c.id, `${field}.connections`);
    for (const [i, c] of connections.entries()) {
      checkSubscriptionProvider(provider.format, c, `${field}.connections[${i}]`);
    }
    provider.connections = connections;
  }
  const timeouts = optional(o.timeouts, (v) =>
    validateTimeouts(v, `${field}.timeouts`, timeoutRanges),
  );
  if (timeouts !== undefined) provider.timeouts = timeouts;
  const enabled = optional(o.enabled, (v) => boolean(v, `${field}.enabled`));
  if (enabled !== undefined) provider.enabled = enabled;
  if (o.quotaFamilies !== undefined) {
    const families = object(o.quotaFamilies, `${field}.quotaFamilies`, null);
    provider.quotaFamilies = Object.fromEntries(
      Object.entries(families).map(([name, patterns]) => [
        name,
        array(patterns, `${field}.quotaFamilies.${name}`).map((p, i) =>
          string(p, `${field}.quotaFamilies.${name}[${i}]`),
        ),
      ]),
    );
  }
  return provider;
}
