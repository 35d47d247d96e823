import { afterEach, describe, expect, it } from 'vitest';
import { OutageProbe } from '../../src/main/engine/state/outage-probe';

/** A ping the test answers or fails by hand; an interval long enough never to fire here. */
function probeWithPings() {
  const pings: { answer: (value?: unknown) => void; fail: (e: unknown) => void }[] = [];
  const seen: string[] = [];
  const failures: unknown[] = [];
  const probe = new OutageProbe(
    () =>
      new Promise<unknown>((answer, fail) => {
        pings.push({ answer, fail });
      }),
    () => seen.push('answered'),
    (err) => {
      failures.push(err);
      seen.push(`unanswered: ${err instanceof Error ? err.message : String(err)}`);
    },
    60_000,
  );
  return { probe, pings, seen, failures };
}

const settle = () => new Promise((r) => setImmediate(r));

let stopProbe: (() => void) | null = null;
afterEach(() => stopProbe?.());

describe('the outage probe', () => {
  it('asks at once and reports the answer', async () => {
    const { probe, pings, seen } = probeWithPings();
    stopProbe = () => probe.stop();
    probe.askNow();
    expect(pings).toHaveLength(1);
    pings[0]!.answer();
    await settle();
    expect(seen).toEqual(['answered']);
  });

  it('one ping at a time: askNow while one is out sends no second ping', async () => {
    const { probe, pings } = probeWithPings();
    stopProbe = () => probe.stop();
    probe.askNow();
    probe.askNow();
    probe.askNow();
    expect(pings).toHaveLength(1);
  });

  it('a ping out when askNow came that goes unanswered is followed by one at once', async () => {
    const { probe, pings, seen } = probeWithPings();
    stopProbe = () => probe.stop();
    probe.askNow();
    probe.askNow();
    probe.askNow();
    pings[0]!.fail(new Error('Stream isn’t writeable'));
    await settle();
    expect(pings).toHaveLength(2);
    pings[1]!.answer();
    await settle();
    expect(seen).toEqual(['unanswered: Stream isn’t writeable', 'answered']);
    // Answered: nothing more is asked until the next reason.
    await settle();
    expect(pings).toHaveLength(2);
  });

  it('without an askNow meanwhile, an unanswered ping waits for the interval', async () => {
    const { probe, pings, seen } = probeWithPings();
    stopProbe = () => probe.stop();
    probe.askNow();
    pings[0]!.fail(new Error('timeout'));
    await settle();
    expect(seen).toEqual(['unanswered: timeout']);
    expect(pings).toHaveLength(1);
  });

  it('stopped, a ping that settles later reports nothing and asks nothing', async () => {
    const { probe, pings, seen } = probeWithPings();
    probe.askNow();
    probe.askNow();
    probe.stop();
    pings[0]!.fail(new Error('late'));
    await settle();
    expect(seen).toEqual([]);
    expect(pings).toHaveLength(1);
  });

  // What the servers answer (or the client fails with) is not the probe's to read: any value
  // is an answer, any rejection a failure handed on as it came.
  it('any answer counts, whatever its value', async () => {
    const huge = 'x'.repeat(1 << 20);
    let nested: unknown = 'PONG';
    for (let i = 0; i < 10_000; i++) nested = [nested];
    for (const value of [undefined, null, '', huge, nested, { ok: false }, ['PONG', null]]) {
      const { probe, pings, seen } = probeWithPings();
      probe.askNow();
      pings[0]!.answer(value);
      await settle();
      probe.stop();
      expect(seen).toEqual(['answered']);
    }
  });

  it('any failure is handed on as it came, and the ask again still follows it', async () => {
    const secret = { message: 'NOAUTH', password: 'redis-secret-0123456789' };
    for (const reason of [null, undefined, 'string', 42, secret, new Error('x'.repeat(1 << 20))]) {
      const { probe, pings, failures } = probeWithPings();
      probe.askNow();
      probe.askNow();
      pings[0]!.fail(reason);
      await settle();
      probe.stop();
      expect(failures).toEqual([reason]);
      expect(pings).toHaveLength(2);
    }
  });

  it('many askNow calls at once, over several outages: never two pings out', async () => {
    const { probe, pings, seen } = probeWithPings();
    stopProbe = () => probe.stop();
    for (let outage = 0; outage < 5; outage++) {
      await Promise.all(Array.from({ length: 50 }, async () => probe.askNow()));
      const out = pings.length;
      pings.at(-1)!.fail(new Error(`down ${outage}`));
      await settle();
      // The failed ping is followed by exactly one more, which answers.
      expect(pings).toHaveLength(out + 1);
      pings.at(-1)!.answer('PONG');
      await settle();
    }
    expect(seen.filter((s) => s === 'answered')).toHaveLength(5);
  });
});
