import { afterEach, describe, expect, it } from 'vitest';
import { OutageProbe } from '../../src/main/engine/state/outage-probe';

/** A ping the test answers or fails by hand; an interval long enough never to fire here. */
function probeWithPings() {
  const pings: { answer: () => void; fail: (e: Error) => void }[] = [];
  const seen: string[] = [];
  const probe = new OutageProbe(
    () =>
      new Promise<void>((answer, fail) => {
        pings.push({ answer, fail });
      }),
    () => seen.push('answered'),
    (err) => seen.push(`unanswered: ${(err as Error).message}`),
    60_000,
  );
  return { probe, pings, seen };
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
});
