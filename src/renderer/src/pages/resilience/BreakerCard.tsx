import type { BreakerStateName, BreakerView } from '../../../../shared/contract';
import { ActionButton, Badge, Card, Countdown, type Tone } from '../../components/ui';
import { formatTime } from '../../hooks';
import { useDashboard } from '../../state/store';

const BREAKER_TONE: Record<BreakerStateName, Tone> = {
  CLOSED: 'ok',
  DEGRADED: 'warn',
  OPEN: 'bad',
  HALF_OPEN: 'info',
};

export function BreakerCard({ b, at }: { b: BreakerView; at: number }) {
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
