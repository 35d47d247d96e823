import { ActionButton, Countdown, ListCard, TableHead } from '../../components/ui';
import { useDashboard } from '../../state/store';

export function Lockouts() {
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
