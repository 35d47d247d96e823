import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CountingProxy, startCountingProxy } from '../chaos/support/counting-proxy';
import { type FakeUpstream, startFakeUpstream } from '../support/fake-upstream';
import { eventually, OPENAI_KEY, startGateway, type TestGateway } from '../support/gateway';

let gw: TestGateway;
let up: FakeUpstream;
let proxy: CountingProxy;
beforeAll(async () => {
  up = await startFakeUpstream();
  proxy = await startCountingProxy(up.port);
  gw = await startGateway({
    config: () => ({
      providers: [
        {
          id: 'oa',
          format: 'openai',
          baseUrl: `${proxy.url}/v1`,
          authClass: 'api_key',
          connections: [{ id: 'oa-1', apiKey: OPENAI_KEY }],
          models: ['gpt-test'],
        },
      ],
    }),
  });
});
afterAll(async () => {
  await gw.close();
  await proxy.close();
  await up.close();
});

describe('defect 8: no upstream connection for an attempt already cancelled', () => {
  it('100 streams aborted at once open no new upstream connection, and none lingers', async () => {
    const N = 100;
    up.setDefault({ chunks: 50, chunkDelayMs: 100 });
    const aborts = Array.from({ length: N }, () => new AbortController());
    await Promise.all(
      aborts.map((c) =>
        fetch(`${gw.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'gpt-test',
            stream: true,
            messages: [{ role: 'user', content: 'hi' }],
          }),
          signal: c.signal,
        }).then((r) => r.body?.getReader().read()),
      ),
    );
    const opened = proxy.opened;
    expect(proxy.open).toBe(opened);
    for (const c of aborts) c.abort();
    await eventually(() => up.abortCount >= N, 5000);
    await eventually(() => proxy.open === 0, 5000);
    // Time for undici to have reconnected, had it been going to.
    await new Promise((r) => setTimeout(r, 300));
    expect(proxy.opened).toBe(opened);
    expect(proxy.unused).toBe(0);
    expect(proxy.open).toBe(0);

    // The pool still serves.
    up.setDefault({});
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
  });
});
