import type { ConnectionStateView } from '../../../shared/contract';
import type { CatalogConnection } from '../config/catalog';
import type { LaneState } from '../resilience/subscription';
import type { ConnectionHealth } from '../store/state-records';

/** A connection as the snapshot shows it: its health, its subscription lane, its load. */
export function connectionStateView(
  c: CatalogConnection,
  health: ConnectionHealth,
  lane: LaneState,
  inFlight: number,
): ConnectionStateView {
  return {
    id: c.id,
    provider: c.provider,
    status: c.enabled ? health.status : 'disabled',
    rateLimitedUntil: health.rateLimitedUntil,
    backoffLevel: health.backoffLevel,
    lastError: health.lastError,
    errorCode: health.errorCode,
    inFlight,
    maxConcurrent: c.maxConcurrent,
    lane: lane.kind === 'accepted' ? 'slow' : lane.kind === 'refused' ? 'refused' : null,
    laneUntil: lane.kind === 'idle' ? null : lane.until,
  };
}
