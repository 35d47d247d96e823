// Folds engine events into the dashboard model: one handler per event family, looked up by the
// event's type. Pure, like the rest of the state folder.

import type { BreakerView, EngineEvent, EngineEventType, Snapshot } from '../../../shared/contract';
import {
  type Activity,
  addToRate,
  type DashboardModel,
  isErrorStatus,
  MAX_ACTIVITY,
  MAX_RECENT,
  TEAM_UNAVAILABLE,
} from './model';

type EventOf<T extends EngineEventType> = EngineEvent & { type: T };
type Handler<T extends EngineEventType> = (
  model: DashboardModel,
  event: EventOf<T>,
) => DashboardModel;

let activitySeq = 0;

function activity(model: DashboardModel, item: Omit<Activity, 'seq'>): Activity[] {
  activitySeq += 1;
  return [{ ...item, seq: activitySeq }, ...model.activity].slice(0, MAX_ACTIVITY);
}

/** The snapshot with `change` applied; no snapshot yet stays none. */
function patchSnapshot(
  model: DashboardModel,
  change: (snap: Snapshot) => Snapshot,
): Snapshot | null {
  return model.snapshot && change(model.snapshot);
}

function withBreaker(
  breakers: BreakerView[],
  provider: string,
  change: (b: BreakerView) => BreakerView,
): BreakerView[] {
  const found = breakers.some((b) => b.provider === provider);
  const base: BreakerView = {
    provider,
    state: 'CLOSED',
    failureCount: 0,
    retryAfterMs: 0,
    history: [],
  };
  return found
    ? breakers.map((b) => (b.provider === provider ? change(b) : b))
    : [...breakers, change(base)];
}

const requestCompleted: Handler<'request.completed'> = (model, event) => {
  const entry = event.entry;
  const isError = isErrorStatus(entry.status);
  return {
    ...model,
    recent: [entry, ...model.recent.filter((r) => r.id !== entry.id)].slice(0, MAX_RECENT),
    rate: addToRate(model.rate, entry.at, isError),
    snapshot: patchSnapshot(model, (snap) => ({
      ...snap,
      gateway: {
        ...snap.gateway,
        requestsTotal: snap.gateway.requestsTotal + 1,
        errorsTotal: snap.gateway.errorsTotal + (entry.status >= 400 ? 1 : 0),
      },
    })),
  };
};

const gatewayPausedOrResumed: Handler<'gateway.paused' | 'gateway.resumed'> = (model, event) => {
  const paused = event.type === 'gateway.paused';
  return {
    ...model,
    snapshot: patchSnapshot(model, (snap) => ({ ...snap, gateway: { ...snap.gateway, paused } })),
    activity: activity(model, {
      at: event.at,
      tone: paused ? 'warn' : 'ok',
      text: paused ? 'Gateway paused' : 'Gateway resumed',
    }),
  };
};

const breakerTransition: Handler<'breaker.transition'> = (model, event) => ({
  ...model,
  snapshot: patchSnapshot(model, (snap) => ({
    ...snap,
    breakers: withBreaker(snap.breakers, event.provider, (b) => ({
      ...b,
      state: event.to,
      // A snapshot read after the transition may already hold it: never list it twice.
      history: b.history.some(
        (h) => h.at === event.at && h.from === event.from && h.to === event.to,
      )
        ? b.history
        : [
            ...b.history,
            { at: event.at, from: event.from, to: event.to, cause: event.cause },
          ].slice(-20),
    })),
  })),
  activity: activity(model, {
    at: event.at,
    tone:
      event.to === 'OPEN'
        ? 'bad'
        : event.to === 'CLOSED'
          ? 'ok'
          : event.to === 'DEGRADED'
            ? 'warn'
            : 'idle',
    text: `${event.provider}: circuit ${event.from} → ${event.to}${event.cause ? ` (${event.cause})` : ''}`,
  }),
});

type ConnectionEventType = 'connection.cooldown' | 'connection.terminal' | 'connection.recovered';

function connectionActivityText(event: EventOf<ConnectionEventType>): string {
  const cause = event.cause ? ` (${event.cause})` : '';
  if (event.type === 'connection.recovered')
    return `${event.provider}/${event.connection} recovered`;
  if (event.type === 'connection.terminal') {
    return `${event.provider}/${event.connection} is ${event.status.replace('_', ' ')}${cause}`;
  }
  return `${event.provider}/${event.connection} cooling down${cause}`;
}

const connectionState: Handler<ConnectionEventType> = (model, event) => {
  const recovered = event.type === 'connection.recovered';
  return {
    ...model,
    snapshot: patchSnapshot(model, (snap) => ({
      ...snap,
      connections: snap.connections.map((c) =>
        c.id === event.connection
          ? {
              ...c,
              status: event.status,
              rateLimitedUntil: recovered ? null : event.until,
              ...(recovered
                ? { lastError: null, errorCode: null, backoffLevel: 0 }
                : { lastError: event.cause || c.lastError }),
            }
          : c,
      ),
    })),
    activity: activity(model, {
      at: event.at,
      tone: recovered ? 'ok' : event.type === 'connection.terminal' ? 'bad' : 'warn',
      text: connectionActivityText(event),
    }),
  };
};

const lockoutChanged: Handler<'lockout.added' | 'lockout.cleared'> = (model, event) => {
  const l = event.lockout;
  const same = (x: typeof l) =>
    x.provider === l.provider && x.connection === l.connection && x.model === l.model;
  const added = event.type === 'lockout.added';
  return {
    ...model,
    snapshot: patchSnapshot(model, (snap) => ({
      ...snap,
      lockouts: added
        ? [...snap.lockouts.filter((x) => !same(x)), l]
        : snap.lockouts.filter((x) => !same(x)),
    })),
    activity: activity(model, {
      at: event.at,
      tone: added ? 'warn' : 'ok',
      text: `${l.provider}/${l.connection}/${l.model} ${added ? `locked out (${l.reason})` : 're-enabled'}`,
    }),
  };
};

const queueRejected: Handler<'queue.rejected'> = (model, event) => ({
  ...model,
  snapshot: patchSnapshot(model, (snap) => ({
    ...snap,
    queues: snap.queues.map((q) =>
      q.provider === event.provider && q.connection === event.connection
        ? { ...q, rejected: q.rejected + 1 }
        : q,
    ),
  })),
  activity: activity(model, {
    at: event.at,
    tone: 'warn',
    text: `${event.provider}/${event.connection}: queue rejected a request (${event.code})`,
  }),
});

const leaseChanged: Handler<'lease.acquired' | 'lease.ended'> = (model, event) => {
  const lease = event.lease;
  const acquired = event.type === 'lease.acquired';
  return {
    ...model,
    snapshot: patchSnapshot(model, (snap) => ({
      ...snap,
      leases: [...snap.leases.filter((x) => x.connection !== lease.connection), lease].filter(
        (x) => x.state === 'ACTIVE',
      ),
    })),
    activity: activity(model, {
      at: event.at,
      tone: 'idle',
      text: `lease on ${lease.connection} ${acquired ? 'acquired' : `ended (${event.cause || lease.state})`}`,
    }),
  };
};

const providerCooldown: Handler<'provider.cooldown' | 'provider.recovered'> = (model, event) => {
  const cooling = event.type === 'provider.cooldown';
  return {
    ...model,
    snapshot: patchSnapshot(model, (snap) => ({
      ...snap,
      breakers: withBreaker(snap.breakers, event.provider, (b) => ({
        ...b,
        cooldownUntil: cooling ? event.until : null,
      })),
    })),
    activity: activity(model, {
      at: event.at,
      tone: cooling ? 'warn' : 'ok',
      text: `${event.provider}: ${cooling ? 'provider cooling down' : 'provider cooldown over'} (${event.cause})`,
    }),
  };
};

const teamStatus: Handler<'team.status'> = (model, event) => ({
  ...model,
  snapshot: patchSnapshot(model, (snap) => ({ ...snap, team: event.team })),
  activity: activity(model, {
    at: event.at,
    tone: event.team.status === 'connected' ? 'ok' : 'warn',
    text: event.team.status === 'connected' ? 'team state connected' : TEAM_UNAVAILABLE,
  }),
});

const configChanged: Handler<'config.changed'> = (model, event) => ({
  ...model,
  configVersion: model.configVersion + 1,
  activity: activity(model, { at: event.at, tone: 'idle', text: `${event.what} changed` }),
});

/** Events the dashboard does not fold in (shape fixes, budget thresholds, moves) have no entry. */
const HANDLERS: { [T in EngineEventType]?: Handler<T> } = {
  'request.completed': requestCompleted,
  'gateway.paused': gatewayPausedOrResumed,
  'gateway.resumed': gatewayPausedOrResumed,
  'breaker.transition': breakerTransition,
  'connection.cooldown': connectionState,
  'connection.terminal': connectionState,
  'connection.recovered': connectionState,
  'lockout.added': lockoutChanged,
  'lockout.cleared': lockoutChanged,
  'queue.rejected': queueRejected,
  'lease.acquired': leaseChanged,
  'lease.ended': leaseChanged,
  'provider.cooldown': providerCooldown,
  'provider.recovered': providerCooldown,
  'team.status': teamStatus,
  'config.changed': configChanged,
};

/**
 * Folds one engine event into the model. What an event does not carry (a breaker's new
 * retry-after, queue depths) is left as it was; the store refetches the snapshot after every
 * batch, so the model converges on the engine's own view.
 */
export function applyEvent(model: DashboardModel, event: EngineEvent): DashboardModel {
  // The table pairs each type with its handler; TypeScript cannot follow that pairing itself.
  const handle = HANDLERS[event.type] as Handler<EngineEventType> | undefined;
  return handle ? handle(model, event) : model;
}
