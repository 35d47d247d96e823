import { connectionBadge } from '../../components/connection-badge';
import { ActionButton, Badge, Countdown, ListCard, TableHead } from '../../components/ui';
import { TERMINAL } from '../../state/model';
import { useDashboard } from '../../state/store';

export function ConnectionStates() {
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
