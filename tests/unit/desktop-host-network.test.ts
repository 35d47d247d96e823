import { describe, expect, it } from 'vitest';
import {
  countsNetworkFailures,
  HOST_NETWORK_GRACE_MS,
  HOST_NETWORK_UP,
  type HostNetworkEvent,
  nextHostNetwork,
} from '../../src/main/engine/resilience/health/host-network';

const run = (events: [HostNetworkEvent, number][]) =>
  events.reduce((s, [e, at]) => nextHostNetwork(s, e, at), HOST_NETWORK_UP);

describe('host network: failures of a sleeping or offline machine are not the providers’', () => {
  it('counts failures of a machine that never slept', () => {
    expect(countsNetworkFailures(HOST_NETWORK_UP, 0)).toBe(true);
  });
  it('does not count while asleep, nor for the grace period after waking', () => {
    const asleep = run([['suspend', 1000]]);
    expect(countsNetworkFailures(asleep, 5_000_000)).toBe(false);
    const awake = nextHostNetwork(asleep, 'resume', 10_000);
    expect(countsNetworkFailures(awake, 10_000)).toBe(false);
    expect(countsNetworkFailures(awake, 10_000 + HOST_NETWORK_GRACE_MS - 1)).toBe(false);
    expect(countsNetworkFailures(awake, 10_000 + HOST_NETWORK_GRACE_MS)).toBe(true);
  });
  it('does not count while offline, and gives the same grace once back online', () => {
    const offline = run([['offline', 0]]);
    expect(countsNetworkFailures(offline, 1_000_000)).toBe(false);
    const back = nextHostNetwork(offline, 'online', 2000);
    expect(countsNetworkFailures(back, 2000 + HOST_NETWORK_GRACE_MS - 1)).toBe(false);
    expect(countsNetworkFailures(back, 2000 + HOST_NETWORK_GRACE_MS)).toBe(true);
  });
  it('waking up offline keeps not counting until the network is back', () => {
    const s = run([
      ['suspend', 0],
      ['offline', 1],
      ['resume', 100_000],
    ]);
    expect(countsNetworkFailures(s, 100_000 + 10 * HOST_NETWORK_GRACE_MS)).toBe(false);
  });
  it('an "online" without a prior "offline" starts no grace (the poller repeats itself)', () => {
    expect(nextHostNetwork(HOST_NETWORK_UP, 'online', 5)).toBe(HOST_NETWORK_UP);
  });
});
