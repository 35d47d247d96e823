import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { SeamLog } from '../../src/main/engine/proxy/pipeline/seam-log';
import { type Client, FULL, readAnswer, readerProviders } from '../support/continuation-clients';
import { startGateway, type TestGateway } from '../support/gateway';

// A stream's continuation log keeps the chunks that went out, for a continuation (issue 28).
// Kept past the stream's end, they were views of the upstream socket's read buffers that a
// finished relay held past the next scavenges, and V8 ran a full collection after nearly every
// scavenge (docs/performance.md, issue 26): every relay lets them go when it is done.

let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway({
    config: (primary) => ({
      providers: readerProviders(primary),
    }),
  });
});
afterAll(() => gw.close());
beforeEach(() => {
  gw.primary.reset();
  vi.restoreAllMocks();
});

const ROUTES: [Client, string, string][] = [
  ['chat', 'oa/gpt-test', 'passed through'],
  ['anthropic', 'an/claude-test', 'passed through'],
  ['chat', 'an/claude-test', 'translated'],
  ['anthropic', 'oa/gpt-test', 'translated'],
];

describe('a finished stream lets go of what its continuation log kept', () => {
  for (const [client, target, how] of ROUTES) {
    it(`${client} → ${target} (${how})`, async () => {
      const release = vi.spyOn(SeamLog.prototype, 'release');
      gw.primary.setDefault({ text: FULL, byWords: true });
      const { text } = await readAnswer(gw.url, client, target);
      expect(text).toBe(FULL);
      expect(release).toHaveBeenCalledTimes(1);
      expect((release.mock.contexts[0] as SeamLog).chunks).toEqual([]);
    });
  }

  it('a stream cut and continued still ends whole: the continuation keeps its own reference', async () => {
    const release = vi.spyOn(SeamLog.prototype, 'release');
    gw.primary.script(
      { text: FULL, byWords: true, resetAfterChunks: 9 },
      { finish: { text: FULL }, byWords: true },
    );
    const { text, stops } = await readAnswer(gw.url, 'anthropic', 'oa/gpt-test');
    expect({ text, stops: stops.length }).toEqual({ text: FULL, stops: 1 });
    // The cut relay released its log once the seam had what it needed (the continuation's own
    // relay keeps no log: it reads through the seam).
    expect(release).toHaveBeenCalledTimes(1);
    expect((release.mock.contexts[0] as SeamLog).chunks).toEqual([]);
  });
});
