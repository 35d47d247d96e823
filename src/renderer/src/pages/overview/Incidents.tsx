import { Badge, Card, Countdown, Empty } from '../../components/ui';
import { incidents } from '../../state/model';
import { useDashboard } from '../../state/store';

export function Incidents() {
  const snapshot = useDashboard((s) => s.snapshot);
  const setPage = useDashboard((s) => s.setPage);
  const list = snapshot ? incidents(snapshot) : [];
  return (
    <Card
      title="Current incidents"
      aside={
        list.length > 0 && (
          <Badge tone={list[0]?.level === 'bad' ? 'bad' : 'warn'}>{list.length}</Badge>
        )
      }
      testId="incidents"
    >
      {list.length === 0 ? (
        <Empty>
          Nothing is wrong right now: every circuit is closed and no connection is cooling.
        </Empty>
      ) : (
        <ul className="incidents">
          {list.map((i) => (
            <li key={i.key} className={`incident incident-${i.level}`}>
              <span className="dot" aria-hidden="true" />
              <div>
                <strong>{i.title}</strong>
                <p className="muted small">{i.detail}</p>
              </div>
              <Countdown until={i.until} prefix="clears in " />
            </li>
          ))}
        </ul>
      )}
      {list.length > 0 && (
        <button type="button" className="btn btn-link" onClick={() => setPage('resilience')}>
          Open the resilience page
        </button>
      )}
    </Card>
  );
}
