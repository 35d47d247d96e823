import type { Snapshot } from '../../../shared/contract';
import { connectionStateView } from '../admin/connection-state';
import { VERSION } from '../version';
import type { EngineParts } from './parts';

/** The engine's state as the dashboard, the admin API and `/metrics` see it. */
export function snapshotOf(parts: EngineParts, inFlight: () => number): (now?: number) => Snapshot {
  const { resilience, subscription, flow, leases, status, settings } = parts;
  return (now = parts.clock.now()) => {
    const catalog = parts.catalog();
    return {
      at: now,
      gateway: {
        version: VERSION,
        ...parts.listening(),
        startedAt: status.startedAt,
        paused: status.paused,
        activeCombo: settings.string('routing.activeCombo') || null,
        requestsTotal: status.requestsTotal,
        errorsTotal: status.errorsTotal,
        inFlight: inFlight(),
      },
      breakers: resilience.breakerViews(now),
      connections: [...catalog.connections.values()].map((c) =>
        connectionStateView(
          c,
          resilience.connectionHealth(c, now),
          subscription.lane(c, now),
          status.inFlight.get(c.id) ?? 0,
        ),
      ),
      lockouts: resilience.lockoutViews(now),
      queues: flow.queueViews(),
      leases: leases.views(now),
      sessions: flow.sessions(now),
      learnedFixes: parts.shapeRepairs.list(),
      quotas: parts.quotas.views(catalog.connections),
      team: parts.shared.view(),
      quotaWaits: parts.quotaWaits.views(),
    };
  };
}
