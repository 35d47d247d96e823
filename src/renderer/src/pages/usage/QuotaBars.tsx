import type { ConnectionQuotaView, QuotaWindowView } from '../../../../shared/contract';
import { Card, Countdown, Empty, TableHead } from '../../components/ui';
import { formatTime } from '../../hooks';
import { useDashboard } from '../../state/store';

const WINDOWS = [
  { key: 'requests', label: 'Requests' },
  { key: 'tokens', label: 'Tokens' },
  { key: 'inputTokens', label: 'Input tokens' },
  { key: 'outputTokens', label: 'Output tokens' },
  { key: 'fiveHour', label: '5-hour window' },
  { key: 'weekly', label: 'Weekly window' },
] as const;

const NONE: ConnectionQuotaView[] = [];

function left(w: QuotaWindowView, percent: boolean): string {
  if (w.remaining === null) return 'unknown';
  if (percent) return `${w.remaining.toFixed(0)} % left`;
  return w.limit === null ? `${w.remaining} left` : `${w.remaining} of ${w.limit} left`;
}

function QuotaRow({ q }: { q: ConnectionQuotaView }) {
  const rows = WINDOWS.flatMap(({ key, label }) => {
    const w = q[key];
    return w ? [{ key, label, w, percent: key === 'fiveHour' || key === 'weekly' }] : [];
  });
  return (
    <>
      {rows.map(({ key, label, w, percent }, i) => (
        <tr key={key} data-testid={`quota-${q.connection}-${key}`}>
          <td>{i === 0 ? q.connection : ''}</td>
          <td>{label}</td>
          <td>
            {w.remaining !== null && w.limit ? (
              <meter
                min={0}
                max={1}
                low={0.2}
                high={0.5}
                optimum={1}
                value={Math.max(0, Math.min(1, w.remaining / w.limit))}
                aria-label={`${q.connection} ${label} left`}
              />
            ) : null}{' '}
            {left(w, percent)}
          </td>
          <td>{w.resetAt === null ? '-' : <Countdown until={w.resetAt} prefix="resets in " />}</td>
          <td>{i === 0 ? formatTime(q.learnedAt) : ''}</td>
        </tr>
      ))}
    </>
  );
}

/**
 * What each connection's upstream last announced of its rate limits, from the snapshot (fetched
 * again after every batch of engine events, so it follows the requests as they complete), with
 * a live countdown to each reset.
 */
export function QuotaBars() {
  const quotas = useDashboard((s) => s.snapshot?.quotas ?? NONE);
  return (
    <Card title="Provider quotas" testId="quota-bars">
      {quotas.length === 0 ? (
        <Empty>No upstream has announced its rate limits yet.</Empty>
      ) : (
        <table className="table">
          <TableHead columns={['Connection', 'Limit', 'Left', 'Reset', 'As of']} />
          <tbody>
            {quotas.map((q) => (
              <QuotaRow key={q.connection} q={q} />
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}
