import { ActionButton, Empty } from '../../components/ui';
import { useDashboard } from '../../state/store';
import { BreakerCard } from './BreakerCard';

export function Breakers() {
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
