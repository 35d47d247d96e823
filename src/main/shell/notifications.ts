// Which desktop notifications to show, as a pure function of engine events: a notification
// when a provider's circuit opens (at most one per provider per minute; several providers in
// one batch share one notification) and when it recovers. Clicking any of them opens the
// resilience page. A gateway key at 80 % of a budget is told once (the engine announces each
// key, limit and window once); clicking opens the usage page. `app.ts` feeds it batches (EVENT
// coalescing window) and shows what it returns.

import type { EngineEvent, KeyLimitName } from '../../shared/contract';

/** One notification per provider per this long, however often its circuit flaps. */
export const OPEN_NOTIFY_INTERVAL_MS = 60_000;
/** Events are gathered this long before deciding, so a failure storm yields one notification. */
export const NOTIFY_BATCH_MS = 1000;

export interface NotifyState {
  /** When each provider's last "circuit open" notification was shown. */
  lastOpenAt: Readonly<Record<string, number>>;
  /** Providers the user was told are open and not yet told have recovered. */
  open: readonly string[];
}

export const initialNotifyState: NotifyState = { lastOpenAt: {}, open: [] };

export interface Notice {
  kind: 'circuit-open' | 'circuit-recovered' | 'update-ready' | 'budget-threshold';
  title: string;
  body: string;
  providers: string[];
  /** Dashboard page a click opens. */
  page: 'resilience' | 'overview' | 'usage';
}

const LIMIT_WORDS: Record<KeyLimitName, string> = {
  requestsPerMinute: 'requests per minute',
  tokensPerDay: 'tokens per day',
  usdPerDay: 'USD per day',
  usdPerMonth: 'USD per month',
};

function amount(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(n < 1 ? 4 : 2);
}

/** One notice for the budgets that reached 80 % in this batch (several share one). */
function budgetNotice(batch: readonly EngineEvent[]): Notice | null {
  const hits = batch.filter((e) => e.type === 'budget.threshold');
  const first = hits[0];
  if (!first) return null;
  if (hits.length === 1) {
    const pct = Math.floor((100 * first.used) / first.max);
    return {
      kind: 'budget-threshold',
      title: `Gateway key "${first.key}": ${pct} % of its budget`,
      body: `${amount(first.used)} of ${amount(first.max)} ${LIMIT_WORDS[first.limit]} used; it resets at ${new Date(first.resetsAt).toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
      providers: [],
      page: 'usage',
    };
  }
  const keys = [...new Set(hits.map((h) => `"${h.key}"`))];
  return {
    kind: 'budget-threshold',
    title: `${hits.length} budgets at 80 %`,
    body: `Gateway keys ${list(keys)} are near their limits.`,
    providers: [],
    page: 'usage',
  };
}

function list(names: string[]): string {
  if (names.length <= 1) return names[0] ?? '';
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * Decides the notifications for one batch of events at time `now`. Within a batch only each
 * provider's last transition counts (OPEN then CLOSED in one second is no news).
 */
export function decideNotifications(
  state: NotifyState,
  batch: readonly EngineEvent[],
  now: number,
): { state: NotifyState; notices: Notice[] } {
  const last = new Map<string, { to: string; cause: string }>();
  for (const e of batch) {
    if (e.type === 'breaker.transition') last.set(e.provider, { to: e.to, cause: e.cause });
  }
  const lastOpenAt = { ...state.lastOpenAt };
  const open = new Set(state.open);
  const opened: string[] = [];
  const causes: string[] = [];
  const recovered: string[] = [];
  for (const [provider, t] of last) {
    if (t.to === 'OPEN') {
      const previous = lastOpenAt[provider];
      if (previous === undefined || now - previous >= OPEN_NOTIFY_INTERVAL_MS) {
        opened.push(provider);
        causes.push(t.cause);
        lastOpenAt[provider] = now;
      }
      open.add(provider);
    } else if (t.to === 'CLOSED' && open.has(provider)) {
      open.delete(provider);
      recovered.push(provider);
    }
  }
  const notices: Notice[] = [];
  if (opened.length === 1) {
    notices.push({
      kind: 'circuit-open',
      title: `${opened[0]}: circuit open`,
      body: `Breakwater is routing around ${opened[0]}${causes[0] ? ` (${causes[0]})` : ''}.`,
      providers: opened,
      page: 'resilience',
    });
  } else if (opened.length > 1) {
    notices.push({
      kind: 'circuit-open',
      title: `${opened.length} circuits open`,
      body: `Breakwater is routing around ${list(opened)}.`,
      providers: opened,
      page: 'resilience',
    });
  }
  if (recovered.length > 0) {
    notices.push({
      kind: 'circuit-recovered',
      title:
        recovered.length === 1
          ? `${recovered[0]} recovered`
          : `${recovered.length} providers recovered`,
      body: `${list(recovered)} ${recovered.length === 1 ? 'is' : 'are'} serving again.`,
      providers: recovered,
      page: 'resilience',
    });
  }
  const budget = budgetNotice(batch);
  if (budget) notices.push(budget);
  return { state: { lastOpenAt, open: [...open] }, notices };
}
