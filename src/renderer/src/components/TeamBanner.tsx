import { TEAM_UNAVAILABLE, teamDegraded } from '../state/model';
import { useDashboard } from '../state/store';

/** Team mode: says so while Redis is unreachable (this instance then serves on its own state). */
export function TeamBanner() {
  const snapshot = useDashboard((s) => s.snapshot);
  if (!snapshot || !teamDegraded(snapshot)) return null;
  return (
    <p className="team-banner" role="alert" data-testid="team-banner">
      <strong>{TEAM_UNAVAILABLE}</strong>: Redis is unreachable. This instance keeps serving on its
      own state and shares again once Redis is back.
    </p>
  );
}
