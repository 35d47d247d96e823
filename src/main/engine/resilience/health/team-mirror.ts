// Team mode: what another instance learnt, applied to this instance's state (the mirror the
// request path reads) and announced on this instance's event stream, as if learnt here.

import type { EngineEvent } from '../../../../shared/contract';
import type { Catalog } from '../../config/catalog';
import type { SharedChange } from '../../state/backend';
import type { BreakerSnapshot, ConnectionHealth, LockoutEntry } from '../../store/state-records';
import { HEALTHY, isTerminal } from './connection-cooldown';
import { lockoutView } from './model-lockout';
import type { ResilienceState } from './resilience-state';

const PEER = 'learnt by another instance';

export function adoptChange(
  state: ResilienceState,
  c: SharedChange,
  catalog: Catalog,
  emit: (e: EngineEvent) => void,
  now: number,
): void {
  switch (c.kind) {
    case 'breaker': {
      const provider = catalog.providers.get(c.id);
      if (provider && c.value)
        state.adopt(() => state.breaker(provider).adopt(c.value as BreakerSnapshot, now));
      return;
    }
    case 'health': {
      const conn = catalog.connections.get(c.id);
      if (!conn) return;
      const before = state.storedHealth(c.id);
      const h = (c.value as ConnectionHealth | null) ?? HEALTHY;
      state.adopt(() => state.setHealth(c.id, h));
      // Only a change of status or cooldown end is news (not a count the peer kept).
      if (before.status === h.status && before.rateLimitedUntil === h.rateLimitedUntil) return;
      const base = { at: now, provider: conn.provider, connection: c.id, status: h.status };
      if (h.status === 'active')
        emit({ ...base, type: 'connection.recovered', until: null, cause: PEER });
      else if (isTerminal(h.status))
        emit({
          ...base,
          type: 'connection.terminal',
          until: null,
          cause: `${PEER}: ${h.lastError ?? h.status}`,
        });
      else
        emit({
          ...base,
          type: 'connection.cooldown',
          until: h.rateLimitedUntil,
          cause: `${PEER}: ${h.lastError ?? 'cooling down'}`,
        });
      return;
    }
    case 'lockout': {
      const entry = c.value as LockoutEntry | null;
      if (entry) {
        state.adopt(() => state.putLockout(entry));
        emit({ type: 'lockout.added', at: now, lockout: lockoutView(entry), cause: PEER });
        return;
      }
      state.adopt(() => {
        for (const e of state.lockouts.clearAll((x) => x.key === c.id)) {
          state.markLockout(e.key, null);
          emit({ type: 'lockout.cleared', at: now, lockout: lockoutView(e), cause: PEER });
        }
      });
      return;
    }
    default:
      return;
  }
}
