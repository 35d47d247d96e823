import { type FormEvent, useEffect, useState } from 'react';
import { saveToken } from './bridge/token';
import type { DashboardBridge } from './bridge/types';
import { TeamBanner } from './components/TeamBanner';
import { CombosPage } from './pages/combos/CombosPage';
import { Overview } from './pages/overview/Overview';
import { Providers } from './pages/providers/Providers';
import { Requests } from './pages/requests/Requests';
import { Resilience } from './pages/resilience/Resilience';
import { RulesPage } from './pages/rules/RulesPage';
import { Settings } from './pages/settings/Settings';
import { SetupWizard } from './pages/setup/SetupWizard';
import { Usage } from './pages/usage/Usage';
import { incidents } from './state/model';
import { connectDashboard, PAGES, type Page, useDashboard } from './state/store';

const TITLES: Record<Page, string> = {
  overview: 'Overview',
  providers: 'Providers',
  rules: 'Rules',
  resilience: 'Resilience',
  requests: 'Requests',
  usage: 'Usage',
  settings: 'Settings',
};

function Nav() {
  const page = useDashboard((s) => s.page);
  const setPage = useDashboard((s) => s.setPage);
  const snapshot = useDashboard((s) => s.snapshot);
  const count = snapshot ? incidents(snapshot).filter((i) => i.key !== 'paused').length : 0;
  return (
    <nav aria-label="Pages" className="nav">
      {PAGES.map((p) => (
        <a
          key={p}
          href={`#/${p}`}
          aria-current={p === page ? 'page' : undefined}
          className={`nav-item ${p === page ? 'nav-on' : ''}`}
          onClick={(e) => {
            e.preventDefault();
            setPage(p);
          }}
        >
          {TITLES[p]}
          {p === 'resilience' && (
            <span
              className={`nav-count ${count > 0 ? '' : 'invisible'}`}
              title={`${count} incidents`}
            >
              {count}
            </span>
          )}
        </a>
      ))}
    </nav>
  );
}

function LinkState() {
  const link = useDashboard((s) => s.link);
  const host = useDashboard((s) => s.bridge?.host);
  const text =
    link === 'live'
      ? 'Live'
      : link === 'connecting'
        ? 'Connecting…'
        : link === 'reconnecting'
          ? 'Reconnecting… (showing the last known state)'
          : 'Signed out';
  return (
    <span
      className={`link link-${link}`}
      data-testid="link-state"
      title={host === 'browser' ? 'Event stream from /api/events' : 'Events from the app'}
    >
      <span className="dot" aria-hidden="true" /> {text}
    </span>
  );
}

function Notice() {
  const notice = useDashboard((s) => s.notice);
  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(
      () => useDashboard.setState({ notice: null }),
      notice.tone === 'bad' ? 12_000 : 4000,
    );
    return () => clearTimeout(t);
  }, [notice]);
  return (
    <p
      className={`notice ${notice ? `notice-${notice.tone}` : ''}`}
      role="status"
      aria-live="polite"
      data-testid="notice"
    >
      {notice?.text ?? '\u00a0'}
    </p>
  );
}

function CurrentPage() {
  const page = useDashboard((s) => s.page);
  useEffect(() => {
    document.title = `${TITLES[page]} · Breakwater`;
    document.getElementById('page-heading')?.focus({ preventScroll: true });
  }, [page]);
  return (
    <div className="page" key={page}>
      <h1 id="page-heading" tabIndex={-1} className="sr-only">
        {TITLES[page]}
      </h1>
      {page === 'overview' && <Overview />}
      {page === 'providers' && <Providers />}
      {page === 'providers' && <CombosPage />}
      {page === 'rules' && <RulesPage />}
      {page === 'resilience' && <Resilience />}
      {page === 'requests' && <Requests />}
      {page === 'usage' && <Usage />}
      {page === 'settings' && <Settings />}
    </div>
  );
}

/** Browser mode without a token: ask for it (never in the URL; kept for this tab only). */
export function SignIn({ onToken, failed }: { onToken(token: string): void; failed: boolean }) {
  const [value, setValue] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!value.trim()) return;
    saveToken(value.trim());
    onToken(value.trim());
  };
  return (
    <main className="signin">
      <h1>Breakwater</h1>
      <form className="card form" onSubmit={submit} aria-label="Sign in">
        <label htmlFor="token">Admin token</label>
        <input
          id="token"
          type="password"
          autoComplete="off"
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
        <p className="muted small">
          It is in <code>&lt;data-dir&gt;/admin-token</code> (or <code>BREAKWATER_ADMIN_TOKEN</code>
          ). It stays in this tab only and is sent in a header, never in the address.
        </p>
        <p className="field-error" role={failed ? 'alert' : undefined}>
          {failed ? 'The gateway refused that token.' : '\u00a0'}
        </p>
        <button type="submit" className="btn btn-primary">
          Open dashboard
        </button>
      </form>
    </main>
  );
}

export function App({ bridge, hasToken }: { bridge: DashboardBridge; hasToken: boolean }) {
  const [session, setSession] = useState(hasToken ? 1 : 0);
  const link = useDashboard((s) => s.link);
  const version = useDashboard((s) => s.snapshot?.gateway.version);
  const [refused, setRefused] = useState(false);
  useEffect(() => {
    if (session === 0) return;
    return connectDashboard(bridge);
  }, [bridge, session]);
  useEffect(() => {
    if (link === 'unauthorized' && bridge.host === 'browser' && session > 0) {
      setRefused(true);
      setSession(0);
    }
  }, [link, bridge, session]);

  if (session === 0) {
    return (
      <SignIn
        failed={refused}
        onToken={() => {
          useDashboard.setState({ link: 'connecting' });
          setSession((n) => n + 1);
        }}
      />
    );
  }
  return (
    <div className="shell">
      <header className="topbar">
        <div className="brand">
          <strong>Breakwater</strong>
          {version && <span className="muted small">{version}</span>}
        </div>
        <Nav />
        <div className="topbar-right">
          <LinkState />
          {bridge.signOut && (
            <button type="button" className="btn btn-small" onClick={() => bridge.signOut?.()}>
              Sign out
            </button>
          )}
        </div>
      </header>
      <Notice />
      <TeamBanner />
      <main className="content">
        <SetupWizard />
        <CurrentPage />
      </main>
    </div>
  );
}
