import { type ReactNode, useEffect, useState } from 'react';
import type { Snapshot } from '../../shared/contract';
import type { DesktopBridge, StartupError } from '../../shared/ipc';

type Startup = { settled: false } | { settled: true; error: StartupError | null };

interface GatewayState {
  snapshot: Snapshot | null;
  snapshotError: string | null;
  startup: Startup;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Snapshot + startup state from the bridge; any event batch triggers one coalesced refetch. */
function useGateway(bridge: DesktopBridge): GatewayState {
  const [snapshot, setSnapshot] = useState<Snapshot | null>(null);
  const [snapshotError, setSnapshotError] = useState<string | null>(null);
  const [startup, setStartup] = useState<Startup>({ settled: false });

  useEffect(() => {
    let alive = true;
    let inFlight = false;
    let again = false;

    const refresh = async (): Promise<void> => {
      if (inFlight) {
        again = true;
        return;
      }
      inFlight = true;
      try {
        do {
          again = false;
          const result = await bridge.getSnapshot();
          if (!alive) return;
          if (result.ok) {
            setSnapshot(result.data);
            setSnapshotError(null);
          } else {
            setSnapshotError(result.error);
          }
        } while (again);
      } catch (err) {
        if (alive) setSnapshotError(errorText(err));
      } finally {
        inFlight = false;
      }
    };

    void refresh();
    bridge
      .getStartupError()
      .then((result) => (result.ok ? result.data : { code: 'bridge', message: result.error }))
      .catch((err: unknown) => ({ code: 'bridge', message: errorText(err) }))
      .then((error) => {
        if (!alive) return;
        setStartup({ settled: true, error });
        void refresh();
      });
    const unsubscribe = bridge.onEvents(() => {
      void refresh();
    });

    return () => {
      alive = false;
      unsubscribe();
    };
  }, [bridge]);

  return { snapshot, snapshotError, startup };
}

type Tone = 'ok' | 'warn' | 'bad' | 'idle';

function Status({ snapshot, startup }: Pick<GatewayState, 'snapshot' | 'startup'>) {
  let tone: Tone;
  let title: string;
  let detail: ReactNode;
  if (!startup.settled) {
    tone = 'idle';
    title = 'Starting';
    detail = 'The gateway is starting…';
  } else if (startup.error) {
    tone = 'bad';
    title = 'Not serving';
    detail = startup.error.message;
  } else if (snapshot?.gateway.paused) {
    tone = 'warn';
    title = 'Paused';
    detail = (
      <>
        Listening on <code>{snapshot.gateway.baseUrl}</code>; requests are not forwarded while
        paused.
      </>
    );
  } else {
    tone = 'ok';
    title = 'Listening';
    detail = snapshot ? (
      <>
        Agents can use <code>{snapshot.gateway.baseUrl}</code>
      </>
    ) : (
      'Listening.'
    );
  }
  return (
    <section className={`status status-${tone}`} aria-live="polite">
      <span className="dot" aria-hidden="true" />
      <div>
        <h2>{title}</h2>
        <p>{detail}</p>
      </div>
    </section>
  );
}

function Count({ label, value, note }: { label: string; value: number; note: string }) {
  return (
    <div className="count">
      <div className="count-value">{value}</div>
      <div className="count-label">{label}</div>
      <div className="count-note">{note}</div>
    </div>
  );
}

function Counts({ snapshot }: { snapshot: Snapshot }) {
  const { gateway, breakers, connections } = snapshot;
  const tripped = breakers.filter((b) => b.state !== 'CLOSED').length;
  const active = connections.filter((c) => c.status === 'active').length;
  return (
    <section className="counts">
      <Count
        label="Requests"
        value={gateway.requestsTotal}
        note={`${gateway.errorsTotal} failed · ${gateway.inFlight} in flight`}
      />
      <Count
        label="Breakers"
        value={breakers.length}
        note={tripped === 0 ? 'all closed' : `${tripped} not closed`}
      />
      <Count label="Connections" value={connections.length} note={`${active} active`} />
    </section>
  );
}

function Dashboard({ bridge }: { bridge: DesktopBridge }) {
  const { snapshot, snapshotError, startup } = useGateway(bridge);
  return (
    <>
      <Status snapshot={snapshot} startup={startup} />
      {snapshot && <Counts snapshot={snapshot} />}
      {snapshotError && !(startup.settled && startup.error) && (
        <p className="muted">Could not read the gateway state: {snapshotError}</p>
      )}
      {snapshot && (
        <p className="muted small">
          Breakwater {snapshot.gateway.version} · updated{' '}
          {new Date(snapshot.at).toLocaleTimeString()}
        </p>
      )}
    </>
  );
}

export function App() {
  const bridge = window.breakwater;
  return (
    <main>
      <header>
        <h1>Breakwater</h1>
        <p className="muted">LLM gateway for local coding agents</p>
      </header>
      {bridge ? (
        <Dashboard bridge={bridge} />
      ) : (
        <section className="status status-idle">
          <span className="dot" aria-hidden="true" />
          <div>
            <h2>Browser dashboard not available yet</h2>
            <p>
              This page needs the Breakwater desktop app. The headless gateway's state is available
              from its admin API at <code>/api/state</code>.
            </p>
          </div>
        </section>
      )}
    </main>
  );
}
