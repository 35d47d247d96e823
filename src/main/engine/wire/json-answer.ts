import type { ServerResponse } from 'node:http';

/** The admin API's error shape: `{error: {code, message, field?}}`. */
export function sendAdminError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  field?: string,
): void {
  sendJson(res, status, { error: { code, message, ...(field ? { field } : {}) } });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}
