// Load generator, run in its own process (forked by bench/run.mjs). One undici pool per job,
// sized to the job's concurrency; every measurement uses process.hrtime (monotonic, shared by
// every process on the machine, which is what lets the stream job compare against the fake
// upstream's write stamps). Commands arrive over IPC; each answers with one result message.
import { Pool } from 'undici';

const NS_PER_MS = 1e6;

function pool(origin, connections) {
  return new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
}

async function once(p, job) {
  const res = await p.request({
    method: 'POST',
    path: job.path,
    headers: job.headers,
    body: job.body,
  });
  let bytes = 0;
  for await (const chunk of res.body) bytes += chunk.length;
  if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
  return bytes;
}

/** Sequential requests at concurrency 1; returns every latency in ms. */
async function latency(job) {
  const p = pool(job.origin, 1);
  try {
    for (let i = 0; i < job.warmup; i++) await once(p, job);
    const samples = new Float64Array(job.requests);
    for (let i = 0; i < job.requests; i++) {
      const t0 = process.hrtime.bigint();
      await once(p, job);
      samples[i] = Number(process.hrtime.bigint() - t0) / NS_PER_MS;
    }
    return { samples: Array.from(samples) };
  } finally {
    await p.close();
  }
}

/** `concurrency` closed loops for warmup + duration; counts completions inside the window. */
async function throughput(job) {
  const p = pool(job.origin, job.concurrency);
  let measuring = false;
  let stop = false;
  let done = 0;
  let total = 0;
  let errors = 0;
  let bytes = 0;
  const loop = async () => {
    while (!stop) {
      try {
        const b = await once(p, job);
        total++;
        if (measuring) {
          done++;
          bytes += b;
        }
      } catch {
        if (measuring) errors++;
      }
    }
  };
  const loops = Array.from({ length: job.concurrency }, loop);
  await new Promise((r) => setTimeout(r, job.warmupMs));
  measuring = true;
  const t0 = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, job.durationMs));
  measuring = false;
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  stop = true;
  await Promise.all(loops);
  await p.close();
  return { rps: done / seconds, total, errors, bytesPerResponse: done ? bytes / done : 0 };
}

const STAMP = /"content":"(\d{6,})"/g;

/**
 * Sequential streams whose chunks carry the upstream's write time (`stampMarker`). Returns the
 * time to first body byte of each stream and, for every chunk, arrival minus write time.
 */
async function stream(job) {
  const p = pool(job.origin, 1);
  try {
    const ttfb = [];
    const delays = [];
    let chunks = 0;
    for (let i = 0; i < job.warmup + job.requests; i++) {
      const measured = i >= job.warmup;
      const t0 = process.hrtime.bigint();
      const res = await p.request({
        method: 'POST',
        path: job.path,
        headers: job.headers,
        body: job.body,
      });
      let first = true;
      let carry = '';
      for await (const chunk of res.body) {
        const now = process.hrtime.bigint();
        if (!measured) continue;
        if (first) {
          ttfb.push(Number(now - t0) / NS_PER_MS);
          first = false;
        }
        // Stamps are only read from whole lines; a line split across reads waits for its end.
        const text = carry + chunk.toString('utf8');
        const cut = text.lastIndexOf('\n');
        carry = text.slice(cut + 1);
        for (const m of text.slice(0, cut + 1).matchAll(STAMP)) {
          delays.push(Number(now - BigInt(m[1])) / NS_PER_MS);
          chunks++;
        }
      }
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
    }
    return { ttfb, delays, chunksPerStream: chunks / job.requests };
  } finally {
    await p.close();
  }
}

let release = null;

/**
 * Opens `count` streams that the upstream leaves open after their first chunk, reports once every
 * one has delivered a byte, and holds them until the parent sends `release`.
 */
async function openStreams(job, reply) {
  const p = pool(job.origin, job.count);
  const controllers = [];
  const opened = [];
  let failed = 0;
  let open = 0;
  let allOpen;
  const everyOne = new Promise((r) => {
    allOpen = r;
  });
  const settle = () => {
    if (open + failed === job.count) allOpen();
  };
  for (let i = 0; i < job.count; i++) {
    const controller = new AbortController();
    controllers.push(controller);
    opened.push(
      (async () => {
        try {
          const res = await p.request({
            method: 'POST',
            path: job.path,
            headers: job.headers,
            body: job.body,
            signal: controller.signal,
          });
          await new Promise((resolve, reject) => {
            res.body.once('data', resolve);
            res.body.once('error', reject);
            res.body.once('end', () => reject(new Error('stream ended early')));
          });
          res.body.on('error', () => {});
          res.body.resume();
          open++;
        } catch {
          failed++;
        }
        settle();
      })(),
    );
    // Connect in batches, so the listen backlog never overflows into SYN retries.
    if (i % 100 === 99) await new Promise((r) => setTimeout(r, 20));
  }
  // A proxy that queues streams behind a connection cap never opens them all: give up waiting.
  let timer;
  await Promise.race([everyOne, new Promise((r) => (timer = setTimeout(r, job.timeoutMs)))]);
  clearTimeout(timer);
  reply({ opened: open, failed, pending: job.count - open - failed });
  await new Promise((r) => {
    release = r;
  });
  for (const c of controllers) c.abort();
  await p.destroy().catch(() => {});
  return { released: true };
}

const handlers = { latency, throughput, stream };

process.on('message', async (msg) => {
  // Bodies cross IPC as strings; encode once, not per request.
  if (typeof msg.job?.body === 'string') msg.job.body = Buffer.from(msg.job.body);
  if (msg.cmd === 'release') {
    release?.();
    release = null;
    return;
  }
  const reply = (result) => process.send({ id: msg.id, result });
  try {
    if (msg.cmd === 'openStreams') {
      const result = await openStreams(msg.job, reply);
      process.send({ id: `${msg.id}:released`, result });
    } else {
      reply(await handlers[msg.cmd](msg.job));
    }
  } catch (err) {
    process.send({ id: msg.id, error: String(err?.stack ?? err) });
  }
});
process.on('disconnect', () => process.exit(0));
