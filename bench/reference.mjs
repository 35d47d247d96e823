// Reference pass-through: the smallest correct undici-based HTTP proxy, the floor Breakwater is
// measured against. No routing, no logging, no header policy: read the body, forward it to the
// one upstream on a keep-alive pool, relay status, content type/length and body back with
// backpressure, and cancel the upstream call when the client goes away.
//
//   node bench/reference.mjs http://127.0.0.1:UPSTREAM_PORT   → prints `reference listening on PORT`
import { createServer } from 'node:http';
import { Pool } from 'undici';

const pool = new Pool(process.argv[2], {
  connections: null,
  pipelining: 1,
  keepAliveTimeout: 30_000,
});

const server = createServer(
  { noDelay: true, keepAlive: true, requestTimeout: 0 },
  async (req, res) => {
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    try {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const body = Buffer.concat(chunks);
      const up = await pool.request({
        method: req.method,
        path: req.url,
        headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
        body,
        signal: controller.signal,
      });
      const headers = { 'content-type': up.headers['content-type'] ?? 'application/json' };
      if (up.headers['content-length']) headers['content-length'] = up.headers['content-length'];
      res.writeHead(up.statusCode, headers);
      res.flushHeaders();
      for await (const chunk of up.body) {
        if (!res.write(chunk)) await new Promise((r) => res.once('drain', r).once('close', r));
      }
      res.end();
    } catch {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    }
  },
);
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`reference listening on ${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
