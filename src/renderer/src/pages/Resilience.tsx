import type { BreakerStateName, BreakerView, ConnectionStateView } from '../../../shared/contract';
import {
  ActionButton,
  Badge,
  Card,
  Countdown,
  Empty,
  ListCard,
  TableHead,
  type Tone,
} from '../components/ui';
import { formatTime } from '../hooks';
import { useDashboard } from '../state/store';

const BREAKER_TONE: Record<BreakerStateName, Tone> = {
  CLOSED: 'ok',
  DEGRADED: 'warn',
  OPEN: 'bad',
  HALF_OPEN: 'info',
};

export const TERMINAL = new Set(['banned', 'expired', 'credits_exhausted']);

/** How a connection's state reads in one word, and its tone. */
export function connectionBadge(c: ConnectionStateView, now: number): { tone: Tone; text: string } {
  if (TERMINAL.has(c.status)) return { tone: 'bad', text: c.status.replace('_', ' ') };
  if (c.status === 'disabled') return { tone: 'idle', text: 'disabled' };
  if (c.rateLimitedUntil && c.rateLimitedUntil > now) return { tone: 'warn', text: 'cooling' };
  if (c.status === 'unavailable') return { tone: 'warn', text: 'unavailable' };
  return { tone: 'ok', text: 'active' };
}

function BreakerCard({ b, at }: { b: BreakerView; at: number }) {
  const bridge = useDashboard((s) => s.bridge);
  const history = b.history.slice(-5).reverse();
  return (
    <Card
      className={`breaker breaker-${b.state.toLowerCase()}`}
      testId={`breaker-${b.provider}`}
      title={b.provider}
      aside={
        <Badge tone={BREAKER_TONE[b.state]}>
          <span data-testid="breaker-state">{b.state.replace('_', '-')}</span>
        </Badge>
      }
    >
      <p className="breaker-line">
        <span>
          {b.failureCount} failure{b.failureCount === 1 ? '' : 's'}
        </span>
        <span className="breaker-timer">
          {b.state === 'OPEN' ? (
            <Countdown until={at + b.retryAfterMs} prefix="half-open in " />
          ) : b.state === 'HALF_OPEN' ? (
            'probing with one request'
          ) : b.cooldownUntil && b.cooldownUntil > at ? (
            <Countdown until={b.cooldownUntil} prefix="provider cooling, " />
          ) : (
            '\u00a0'
          )}
        </span>
      </p>
      <ol className="history" aria-label={`${b.provider} transitions`}>
        {history.length === 0 ? (
          <li className="muted small">No transitions yet.</li>
        ) : (
          history.map((t) => (
            <li key={`${t.at}-${t.to}`} className="small">
              <time>{formatTime(t.at)}</time> {t.from.replace('_', '-')} → {t.to.replace('_', '-')}
              {t.cause && <span className="muted"> · {t.cause}</span>}
            </li>
          ))
        )}
      </ol>
      {bridge && (b.state !== 'CLOSED' || (b.cooldownUntil ?? 0) > at) && (
        <ActionButton
          run={() => bridge.resetBreaker(b.provider)}
          done={`${b.provider}: circuit reset`}
          testId={`reset-${b.provider}`}
        >
          Reset circuit
        </ActionButton>
      )}
    </Card>
  );
}

function Breakers() {
  const snapshot = useDashboard((s) => s.snapshot);
  const bridge = useDashboard((s) => s.bridge);
  if (!snapshot) return null;
  const anyTripped = snapshot.breakers.some((b) => b.state !== 'CLOSED');
  return (
    <section aria-labelledby="breakers-h">
      <div className="section-head">
        <h2 id="breakers-h">Provider circuits</h2>
        {bridge && anyTripped && (
          <ActionButton run={() => bridge.resetBreaker()} done="Every circuit reset">
            Reset all
          </ActionButton>
        )}
      </div>
      {snapshot.breakers.length === 0 ? (
        <Empty>
          The engine reports no circuit breakers yet. They appear here once a provider has served or
          failed a request with the resilience engine on.
        </Empty>
      ) : (
        <div className="grid">
          {snapshot.breakers.map((b) => (
            <BreakerCard key={b.provider} b={b} at={snapshot.at} />
          ))}
        </div>
      )}
    </section>
  );
}

function Connections() {
  const snapshot = useDashboard((s) => s.snapshot);
  const bridge = useDashboard((s) => s.bridge);
  if (!snapshot) return null;
  return (
    <ListCard
      title="Connections"
      testId="connection-states"
      items={snapshot.connections}
      empty="No connections configured."
    >
      <table className="table">
        <TableHead
          columns={['Connection', 'State', 'Recovers in', 'Backoff', 'In flight', 'Last error']}
          actions
        />
        <tbody>
          {snapshot.connections.map((c) => {
            const badge = connectionBadge(c, snapshot.at);
            const stuck = badge.text !== 'active' && badge.text !== 'disabled';
            return (
              <tr key={c.id} data-testid={`conn-${c.id}`}>
                <td>
                  <span className="muted">{c.provider}/</span>
                  {c.id}
                </td>
                <td>
                  <Badge tone={badge.tone}>
                    <span data-testid="conn-state">{badge.text}</span>
                  </Badge>
                </td>
                <td className="num">
                  {c.rateLimitedUntil && c.rateLimitedUntil > snapshot.at ? (
                    <Countdown until={c.rateLimitedUntil} />
                  ) : TERMINAL.has(c.status) ? (
                    <span className="muted small">needs you</span>
                  ) : (
                    <span className="muted">–</span>
                  )}
                </td>
                <td className="num">{c.backoffLevel}</td>
                <td className="num">
                  {c.inFlight}
                  {c.maxConcurrent ? `/${c.maxConcurrent}` : ''}
                </td>
                <td className="error-cell" title={c.lastError ?? ''}>
                  {c.lastError ? (
                    <>
                      {c.errorCode && <code>{c.errorCode}</code>} {c.lastError}
                    </>
                  ) : (
                    <span className="muted">–</span>
                  )}
                </td>
                <td>
                  {bridge && stuck && (
                    <ActionButton
                      run={() => bridge.clearConnectionState(c.id)}
                      done={`${c.id}: cleared`}
                    >
                      {TERMINAL.has(c.status) ? 'Clear state' : 'Clear cooldown'}
                    </ActionButton>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </ListCard>
  );
}

function Lockouts() {
  const snapshot = useDashboard((s) => s.snapshot);
  const bridge = useDashboard((s) => s.bridge);
  if (!snapshot) return null;
  const rows = snapshot.lockouts;
  return (
    <ListCard title="Model lockouts" testId="lockouts" items={rows} empty="No model is locked out.">
      <table className="table">
        <TableHead columns={['Model', 'Scope', 'Reason', 'Failures', 'Expires in']} actions />
        <tbody>
          {rows.map((l) => (
            <tr key={`${l.provider}:${l.connection}:${l.model}:${l.scope}`}>
              <td>
                <span className="muted">
                  {l.provider}/{l.connection}/
                </span>
                {l.model}
              </td>
              <td>{l.scope}</td>
              <td>{l.reason}</td>
              <td className="num">{l.failureCount}</td>
              <td className="num">
                <Countdown until={l.expiresAt} />
              </td>
              <td>
                {bridge && (
                  <ActionButton
                    run={() =>
                      bridge.reenableModel({
                        provider: l.provider,
                        connection: l.connection,
                        model: l.model,
                      })
                    }
                    done={`${l.model} re-enabled on ${l.connection}`}
                  >
                    Re-enable
                  </ActionButton>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ListCard>
  );
}

function QueuesLeasesSessions() {
  const snapshot = useDashboard((s) => s.snapshot);
  const bridge = useDashboard((s) => s.bridge);
  if (!snapshot) return null;
  return (
    <div className="grid grid-3">
      <ListCard
        title="Queues"
        testId="queues"
        items={snapshot.queues}
        empty="No request queues reported."
      >
        <table className="table compact">
          <TableHead columns={['Connection', 'Running', 'Waiting', 'Rejected']} />
          <tbody>
            {snapshot.queues.map((q) => (
              <tr key={`${q.provider}:${q.connection}`}>
                <td>{q.connection}</td>
                <td className="num">{q.running}</td>
                <td className="num">{q.queued}</td>
                <td className={`num ${q.rejected > 0 ? 'text-bad' : ''}`}>{q.rejected}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListCard>
      <ListCard
        title="Exclusive leases"
        testId="leases"
        items={snapshot.leases}
        empty="No connection is leased."
      >
        <ul className="plain">
          {snapshot.leases.map((l) => (
            <li key={`${l.connection}:${l.generation}`} className="row">
              <span>
                {l.connection} <span className="muted small">gen {l.generation}</span>{' '}
                <Badge tone={l.state === 'ACTIVE' ? 'info' : 'idle'}>{l.state}</Badge>
              </span>
              <Countdown until={l.expiresAt} />
              {bridge && l.state === 'ACTIVE' && (
                <ActionButton
                  run={() => bridge.releaseLease(l.connection)}
                  done={`Lease on ${l.connection} released`}
                  confirm={`Release the lease on ${l.connection}? Its client loses exclusive use.`}
                >
                  Release
                </ActionButton>
              )}
            </li>
          ))}
        </ul>
      </ListCard>
      <ListCard
        title="Session affinity"
        testId="sessions"
        items={snapshot.sessions}
        empty="No sessions pinned."
      >
        <ul className="plain">
          {snapshot.sessions.map((s) => (
            <li key={s.session} className="row">
              <code title={s.session}>{s.session.slice(0, 12)}</code> → {s.connection}
              <Countdown until={s.expiresAt} />
            </li>
          ))}
        </ul>
      </ListCard>
    </div>
  );
}

function Activity() {
  const activity = useDashboard((s) => s.activity);
  return (
    <ListCard
      title="Recent resilience events"
      items={activity}
      empty="No state changes since this page opened."
    >
      <ol className="feed">
        {activity.slice(0, 30).map((a) => (
          <li key={a.seq} className={`feed-${a.tone}`}>
            <time>{formatTime(a.at)}</time> {a.text}
          </li>
        ))}
      </ol>
    </ListCard>
  );
}

export function Resilience() {
  return (
    <>
      <Breakers />
      <Connections />
      <Lockouts />
      <QueuesLeasesSessions />
      <Activity />
    </>
  );
}
