import { ActionButton, Badge, Countdown, ListCard, TableHead } from '../../components/ui';
import { useDashboard } from '../../state/store';

export function QueuesLeasesSessions() {
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
