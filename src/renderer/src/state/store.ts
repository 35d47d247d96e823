// One zustand store, fed by one subscription: the snapshot (read at start, after every event
// batch, and when the earliest timer in it runs out) and the event stream folded in with the
// pure `applyEvent`. Components select the smallest slice they need.

import { create } from 'zustand';
import type { StartupError } from '../../../shared/ipc';
import type { DashboardBridge, LinkState } from '../bridge/types';
import { applyEvent } from './apply-event';
import { applyLogs, applySnapshot, type DashboardModel, emptyModel, nextDeadline } from './model';

export type Startup = { settled: false } | { settled: true; error: StartupError | null };

export const PAGES = [
  'overview',
  'providers',
  'rules',
  'resilience',
  'requests',
  'usage',
  'settings',
] as const;
export type Page = (typeof PAGES)[number];

export interface DashboardState extends DashboardModel {
  bridge: DashboardBridge | null;
  link: LinkState;
  startup: Startup;
  snapshotError: string | null;
  page: Page;
  /** Last action result shown in the toast line (null hides it; space stays reserved). */
  notice: { tone: 'ok' | 'bad'; text: string } | null;
  setPage(page: Page): void;
  notify(tone: 'ok' | 'bad', text: string): void;
  refresh(): Promise<void>;
}

/** Smallest gap between two snapshot reads caused by events. */
const REFRESH_GAP_MS = 250;

export const useDashboard = create<DashboardState>()((set) => ({
  ...emptyModel,
  bridge: null,
  link: 'connecting',
  startup: { settled: false },
  snapshotError: null,
  page: 'overview',
  notice: null,
  setPage(page) {
    set({ page });
    if (window.location.hash !== `#/${page}`) window.history.replaceState(null, '', `#/${page}`);
  },
  notify(tone, text) {
    set({ notice: { tone, text } });
  },
  async refresh() {
    await refresher.run();
  },
}));

/** Coalesces snapshot reads: one in flight at a time, one more queued at most. */
const refresher = (() => {
  let inFlight: Promise<void> | null = null;
  let again = false;
  let deadlineTimer: ReturnType<typeof setTimeout> | null = null;
  let lastRead = 0;
  let pending: ReturnType<typeof setTimeout> | null = null;

  const armDeadline = () => {
    if (deadlineTimer) clearTimeout(deadlineTimer);
    deadlineTimer = null;
    const { snapshot, skew } = useDashboard.getState();
    if (!snapshot) return;
    const due = nextDeadline(snapshot);
    if (due === null) return;
    // Lazy recovery: the engine promotes expired state when read, so read just after it expires.
    const wait = Math.max(200, due + skew - Date.now() + 150);
    deadlineTimer = setTimeout(() => void run(), Math.min(wait, 2 ** 31 - 1));
  };

  const readOnce = async () => {
    const bridge = useDashboard.getState().bridge;
    if (!bridge) return;
    lastRead = Date.now();
    const result = await bridge.getSnapshot();
    if (result.ok) {
      useDashboard.setState((s) => ({
        ...applySnapshot(s, result.data, Date.now()),
        snapshotError: null,
      }));
      armDeadline();
    } else {
      useDashboard.setState({ snapshotError: result.error });
    }
  };

  const run = (): Promise<void> => {
    if (inFlight) {
      again = true;
      return inFlight;
    }
    inFlight = (async () => {
      try {
        do {
          again = false;
          await readOnce();
        } while (again);
      } catch (err) {
        useDashboard.setState({
          snapshotError: err instanceof Error ? err.message : String(err),
        });
      } finally {
        inFlight = null;
      }
    })();
    return inFlight;
  };

  /** After events: read soon, but not more often than every REFRESH_GAP_MS. */
  const soon = () => {
    if (pending) return;
    const wait = Math.max(0, lastRead + REFRESH_GAP_MS - Date.now());
    pending = setTimeout(() => {
      pending = null;
      void run();
    }, wait);
  };

  const stop = () => {
    if (deadlineTimer) clearTimeout(deadlineTimer);
    if (pending) clearTimeout(pending);
    deadlineTimer = null;
    pending = null;
  };

  return { run, soon, stop };
})();

function pageFromHash(): Page | null {
  const name = window.location.hash.replace(/^#\/?/, '');
  return (PAGES as readonly string[]).includes(name) ? (name as Page) : null;
}

/** Connects the store to a bridge; returns a function that disconnects it. */
export function connectDashboard(bridge: DashboardBridge): () => void {
  useDashboard.setState({ ...emptyModel, bridge, page: pageFromHash() ?? 'overview' });
  const offs: (() => void)[] = [];
  offs.push(
    bridge.onEvents((events) => {
      useDashboard.setState((s) => events.reduce(applyEvent, s as DashboardModel));
      refresher.soon();
    }),
  );
  if (bridge.onLinkChange) {
    offs.push(
      bridge.onLinkChange((link) => {
        const was = useDashboard.getState().link;
        useDashboard.setState({ link });
        // Back from a dropped stream: events may have been missed, read everything again.
        if (link === 'live' && was === 'reconnecting') void refresher.run();
      }),
    );
  }
  if (bridge.onNavigate) {
    offs.push(
      bridge.onNavigate((page) => {
        if ((PAGES as readonly string[]).includes(page))
          useDashboard.getState().setPage(page as Page);
      }),
    );
  }
  const onHash = () => {
    const page = pageFromHash();
    if (page) useDashboard.setState({ page });
  };
  window.addEventListener('hashchange', onHash);
  offs.push(() => window.removeEventListener('hashchange', onHash));

  void refresher.run();
  void bridge.getLogs(500).then((r) => {
    if (r.ok) useDashboard.setState((s) => applyLogs(s, r.data));
  });
  if (bridge.getStartupError) {
    void bridge
      .getStartupError()
      .then((r) => (r.ok ? r.data : { code: 'bridge', message: r.error }))
      .catch((err: unknown) => ({ code: 'bridge', message: String(err) }))
      .then((error) => {
        useDashboard.setState({ startup: { settled: true, error } });
        void refresher.run();
      });
  } else {
    useDashboard.setState({ startup: { settled: true, error: null } });
  }
  return () => {
    for (const off of offs) off();
    refresher.stop();
  };
}
