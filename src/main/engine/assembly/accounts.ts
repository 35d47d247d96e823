import type { GatewayApiKeyConfig } from '../../../shared/contract';
import { bindRefusal } from '../proxy/binding';
import { QuotaBook } from '../routing/quota-book';
import { CacheWatch } from '../usage/cache-watch';
import { KeyRing } from '../usage/key-ring';
import { UsageService } from '../usage/service';
import { SessionBook } from '../usage/sessions';
import type { Accounts, Foundation } from './parts';

/**
 * The gateway keys, their usage and the providers' quotas. Refuses (closing the store) a bind
 * address that would serve other machines with no key to check.
 */
export function buildAccounts(
  base: Foundation,
  apiKeys: readonly GatewayApiKeyConfig[],
  host: string,
): Accounts {
  const { clock, log, events, store, settings, shared } = base;
  // Gateway keys live in the store; the config file's are imported (by name) at every start.
  const keyRing = new KeyRing(store.gatewayKeys, () => clock.now());
  keyRing.importConfig(apiKeys);
  const refusal = bindRefusal(host, keyRing.size);
  if (refusal) {
    store.close();
    throw new Error(refusal);
  }
  const usage = new UsageService({
    repo: store.usage,
    keys: keyRing,
    now: () => clock.now(),
    emit: (e) => events.emit(e),
    retentionDays: () => settings.number('usage.retentionDays'),
    onError: (err) => log.error(`usage roll-up: ${String(err)}`),
    shared,
  });
  const quotas = new QuotaBook(store.quotas, (err) => log.error(`quotas: ${String(err)}`), shared);
  const sessions = new SessionBook(store.usage, () => clock.now(), base.maps);
  const lossPercent = settings.derived((s) => s.number('cacheWatch.lossPercent'));
  const cacheWatch = new CacheWatch(base.maps, () => lossPercent() / 100);
  return { keyRing, usage, quotas, sessions, cacheWatch };
}
