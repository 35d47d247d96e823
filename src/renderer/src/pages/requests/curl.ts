// "Copy as curl": the client's captured request sent to the gateway again from a shell. It names
// the gateway, never the provider, and no secret: a credential header becomes the variable
// the user's own key is in.

import type { CapturedClientRequest } from '../../../../shared/contract';

const LEFT_OUT = new Set(['host', 'content-length', 'connection', 'accept-encoding']);
const CREDENTIALS = new Set(['authorization', 'x-api-key', 'x-goog-api-key']);

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function curlOf(client: CapturedClientRequest, gatewayBaseUrl: string): string {
  const lines = [`curl -sS -X ${client.method} ${quote(`${gatewayBaseUrl}${client.path}`)}`];
  let credential = false;
  for (const [name, value] of Object.entries(client.headers)) {
    const lower = name.toLowerCase();
    if (LEFT_OUT.has(lower)) continue;
    if (CREDENTIALS.has(lower) || value === '[redacted]') {
      credential ||= CREDENTIALS.has(lower);
      continue;
    }
    lines.push(`-H ${quote(`${lower}: ${value}`)}`);
  }
  if (credential) lines.push('-H "authorization: Bearer $BREAKWATER_API_KEY"');
  if (client.body !== null) lines.push(`--data-raw ${quote(client.body)}`);
  return lines.join(' \\\n  ');
}
