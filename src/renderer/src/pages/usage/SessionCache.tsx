import { useEffect, useState } from 'react';
import type { SessionCacheTurn, SessionCacheView } from '../../../../shared/contract';
import { Card, Empty, TableHead } from '../../components/ui';
import { useDashboard } from '../../state/store';

const COLUMNS = ['Session', 'Model', 'Turns', 'Cache hit', 'Per turn', 'Where it fell'];

const rate = (t: SessionCacheTurn) => (t.promptTokens > 0 ? t.readTokens / t.promptTokens : 0);

/**
 * One bar per turn, as tall as its cache-read share; a turn that lost the cache is a full red
 * bar (it may have read nothing, which would leave no bar to see).
 */
function TurnBars({ turns }: { turns: SessionCacheTurn[] }) {
  return (
    <span className="turn-bars" style={{ display: 'inline-flex', alignItems: 'flex-end', gap: 1 }}>
      {turns.map((t) => (
        <span
          key={t.turn}
          title={`turn ${t.turn}: ${(100 * rate(t)).toFixed(0)} % read from the cache${t.detail ? ` (${t.detail})` : ''}`}
          style={{
            display: 'inline-block',
            width: 4,
            height: t.lost ? 16 : Math.max(1, Math.round(16 * rate(t))),
            background: t.lost ? 'var(--danger, #c0392b)' : 'var(--accent, #2e86de)',
          }}
        />
      ))}
    </span>
  );
}

/**
 * Recent sessions' prompt-cache hit rate turn by turn (`GET /api/usage/cache`), with the turns
 * where it fell and why (the `cache.lost` events). Reloaded as requests complete.
 */
export function SessionCache({ lastRequest }: { lastRequest: number }) {
  const bridge = useDashboard((s) => s.bridge);
  const [sessions, setSessions] = useState<SessionCacheView[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a completed request is the trigger
  useEffect(() => {
    if (!bridge) return;
    let live = true;
    const t = setTimeout(async () => {
      const got = await bridge.getSessionCache();
      if (!live) return;
      if (got.ok) {
        setSessions(got.data);
        setError(null);
      } else setError(got.error);
    }, 300);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [bridge, lastRequest]);

  return (
    <Card title="Session cache, turn by turn" testId="usage-session-cache">
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {!sessions || sessions.length === 0 ? (
        <Empty>No session has been served since the gateway started.</Empty>
      ) : (
        <table className="table">
          <TableHead columns={COLUMNS} />
          <tbody>
            {sessions.map((s) => {
              const fell = s.history.filter((t) => t.lost);
              return (
                <tr key={`${s.session}\u0000${s.model}`}>
                  <td>{s.session}</td>
                  <td>{s.model}</td>
                  <td>{s.turns}</td>
                  <td>{`${(100 * s.hitRate).toFixed(1)} %`}</td>
                  <td>
                    <TurnBars turns={s.history} />
                  </td>
                  <td>
                    {fell.length === 0
                      ? '-'
                      : fell.map((t) => (
                          <div key={t.turn}>{`turn ${t.turn}: ${t.detail ?? t.lost}`}</div>
                        ))}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </Card>
  );
}
