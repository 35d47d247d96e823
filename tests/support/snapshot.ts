import type { Snapshot } from '../../src/shared/contract';

/** A healthy gateway's snapshot at `at` (no providers), with `over` on top. */
export function healthySnapshot(at: number, over: Partial<Snapshot> = {}): Snapshot {
  return {
    at,
    gateway: {
      version: '0.1.0',
      host: '127.0.0.1',
      port: 4141,
      baseUrl: 'http://127.0.0.1:4141',
      startedAt: at - 1000,
      paused: false,
      requestsTotal: 3,
      errorsTotal: 0,
      inFlight: 0,
    },
    breakers: [],
    connections: [],
    lockouts: [],
    queues: [],
    leases: [],
    sessions: [],
    ...over,
  };
}
