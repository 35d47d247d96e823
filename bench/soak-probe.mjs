// Preloaded into the gateway by bench/soak.mjs (`node --import`): prints its memory every
// second on stderr, so the soak can report RSS and heap over time without instrumenting it.
const timer = setInterval(() => {
  const m = process.memoryUsage();
  process.stderr.write(
    `soak-probe ${JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external })}\n`,
  );
}, 1000);
timer.unref();
