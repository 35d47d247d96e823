// Serves the built renderer (`out/renderer`) as the browser dashboard under `/ui`. Static files
// only: the page itself holds no secret; it asks for the admin token and calls `/api/*` with it.
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Same policy as the page's meta tag, sent as a header too (it also covers frame-ancestors). */
export const UI_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function send(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body = '',
): void {
  res.writeHead(status, { 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

/**
 * Returns the `ServerDeps.ui` hook: answers GET/HEAD under `/ui` (index.html for `/ui/`, files
 * below it by path) and leaves every other path to the proxy by resolving false.
 */
export function createUiHandler(dir: string) {
  const root = normalize(dir);
  return async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> => {
    const path = url.pathname;
    if (path !== '/ui' && !path.startsWith('/ui/')) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }, 'GET only\n');
      return true;
    }
    // Relative asset URLs need the trailing slash; keep query and fragment untouched.
    if (path === '/ui') {
      send(res, 308, { location: `/ui/${url.search}` });
      return true;
    }
    let rel: string;
    try {
      rel = decodeURIComponent(path.slice('/ui/'.length)) || 'index.html';
    } catch {
      send(res, 400, { 'content-type': 'text/plain' }, 'malformed path\n');
      return true;
    }
    const file = normalize(join(root, rel));
    if (!file.startsWith(root + sep) || rel.includes('\0')) {
      send(res, 404, { 'content-type': 'text/plain' }, 'not found\n');
      return true;
    }
    let body: Buffer;
    try {
      if (!(await stat(file)).isFile()) throw new Error('not a file');
      body = await readFile(file);
    } catch {
      const missing = rel === 'index.html';
      send(
        res,
        404,
        { 'content-type': 'text/plain; charset=utf-8' },
        missing
          ? `The dashboard is not built (${file} is missing). Run \`npm run build\`, then reload.\n`
          : 'not found\n',
      );
      return true;
    }
    const hashed = rel.startsWith('assets/');
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': body.length,
      'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-store',
      'content-security-policy': UI_CSP,
      'x-content-type-options': 'nosniff',
      // The token travels in the fragment, which browsers never send; no referrer leaks either.
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
