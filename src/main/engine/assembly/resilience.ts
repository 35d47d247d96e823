import type { Catalog } from '../config/catalog';
import { FlowControl } from '../resilience/flow';
import { leaseService, teamLeaseRepo } from '../resilience/leases';
import { ResilienceManager } from '../resilience/manager';
import { QuotaWaitRoom } from '../resilience/quota-wait';
import { ShapeRepairs } from '../resilience/shape';
import { SubscriptionService } from '../resilience/subscription';
import type { KeyRing } from '../usage/key-ring';
import type { Foundation, ResilienceServices } from './parts';

export interface ResilienceInputs {
  catalog(): Catalog;
  keyRing: KeyRing;
  /** Random source in [0, 1) for the subscription lane's jittered waits. */
  random(): number;
}

/**
 * The resilience mechanisms (RESILIENCE.md), their state loaded from the store or the team's
 * Redis. Leases are reconciled now and whenever a gateway key changes.
 */
export function buildResilience(base: Foundation, inputs: ResilienceInputs): ResilienceServices {
  const { shared, settings, store, events, log, clock } = base;
  const { catalog, keyRing } = inputs;
  const resilience = new ResilienceManager({
    shared,
    settings,
    catalog,
    repo: store.resilience,
    emit: (e) => events.emit(e),
    log,
    now: () => clock.now(),
    recentEgress: (connection, since) => store.requestLog.recentEgress(connection, since),
  });
  // Anthropic subscription accounts (§2); lane state survives restarts.
  const subscription = new SubscriptionService({
    repo: store.subscription,
    log,
    now: () => clock.now(),
    random: inputs.random,
    apiBase: () => settings.string('subscription.anthropicApiBase'),
  });
  // Request-shape fixes learnt from providers' 400s (issue 17); they survive restarts.
  const shapeRepairs = new ShapeRepairs({
    repo: store.learnedFixes,
    emit: (e) => events.emit(e),
    log,
    now: () => clock.now(),
  });
  const flow = new FlowControl({
    shared,
    settings,
    pins: store.sessionPins,
    maps: base.maps,
    log,
    now: () => clock.now(),
  });
  // Exclusive session leases (§10); ACTIVE ones survive restarts, revoked keys end theirs.
  const leases = leaseService(shared, {
    repo: teamLeaseRepo(store.leases, shared, clock, (l) => leases.adopt(l, clock.now())),
    emit: (e) => events.emit(e),
    log,
    keyNamed: (name) => keyRing.liveByName(name),
    catalog,
    exclusion: (c, now) => resilience.exclusion(c, now),
    connectionEligible: (c, now) =>
      resilience.leasable(c, catalog().providers.get(c.provider), now),
  });
  leases.reconcile(clock.now());
  keyRing.onChange(() => leases.reconcile(clock.now()));
  const quotaWaits = new QuotaWaitRoom(() => clock.now());
  return { resilience, subscription, shapeRepairs, flow, leases, quotaWaits };
}
