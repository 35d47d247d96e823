import { StartupActions } from '../../components/StartupActions';
import { ActionButton } from '../../components/ui';
import { formatTime } from '../../hooks';
import { useDashboard } from '../../state/store';

export function StatusCard() {
  const snapshot = useDashboard((s) => s.snapshot);
  const startup = useDashboard((s) => s.startup);
  const bridge = useDashboard((s) => s.bridge);
  let tone: 'ok' | 'warn' | 'bad' | 'idle' = 'idle';
  let title = 'Starting';
  let detail = 'The gateway is starting…';
  if (startup.settled && startup.error) {
    tone = 'bad';
    title = 'Not serving';
    detail = startup.error.message;
  } else if (snapshot?.gateway.paused) {
    tone = 'warn';
    title = 'Paused';
    detail = 'Agents get 503 gateway_paused until you resume. The dashboard keeps working.';
  } else if (snapshot) {
    tone = 'ok';
    title = 'Running';
    detail = `Forwarding requests · up since ${formatTime(snapshot.gateway.startedAt)}`;
  }
  return (
    <section className={`status status-${tone}`} aria-live="polite" data-testid="status">
      <span className="dot" aria-hidden="true" />
      <div className="status-body">
        <h2>{title}</h2>
        <p>{detail}</p>
      </div>
      {startup.settled && startup.error && <StartupActions error={startup.error} />}
      {snapshot && bridge && !(startup.settled && startup.error) && (
        <div className="status-actions">
          {snapshot.gateway.paused ? (
            <ActionButton run={() => bridge.resume()} done="Resumed" tone="primary">
              Resume
            </ActionButton>
          ) : (
            <ActionButton run={() => bridge.pause()} done="Paused: agents get 503">
              Pause
            </ActionButton>
          )}
        </div>
      )}
    </section>
  );
}
