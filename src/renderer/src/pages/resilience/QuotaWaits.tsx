import { Countdown, ListCard, TableHead } from '../../components/ui';
import { useDashboard } from '../../state/store';

/** Requests held until a quota reset instead of failing (issue 29). */
export function QuotaWaits() {
  const snapshot = useDashboard((s) => s.snapshot);
  if (!snapshot) return null;
  const rows = snapshot.quotaWaits ?? [];
  return (
    <ListCard
      title="Waiting for a quota reset"
      testId="quota-waits"
      items={rows}
      empty="No request is waiting for a quota reset."
    >
      <table className="table">
        <TableHead columns={['Model', 'Key', 'Waiting for', 'Reason', 'Reset in']} />
        <tbody>
          {rows.map((w) => (
            <tr key={w.id}>
              <td>{w.model}</td>
              <td>{w.key ?? <span className="muted">none</span>}</td>
              <td>{w.subject}</td>
              <td>{w.reason}</td>
              <td className="num">
                <Countdown until={w.until} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ListCard>
  );
}
