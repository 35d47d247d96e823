import { ListCard } from '../../components/ui';
import { formatTime } from '../../hooks';
import { useDashboard } from '../../state/store';

export function Activity() {
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
