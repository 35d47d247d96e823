import { useEffect, useState } from 'react';
import type { RequestLogDetail } from '../../../../shared/contract';
import { CopyButton } from '../../components/ui';
import { useDashboard } from '../../state/store';
import { curlOf } from './curl';

/** The targets a request can be replayed on: the combos, then every provider's models. */
function useTargets(): string[] {
  const bridge = useDashboard((s) => s.bridge);
  const [targets, setTargets] = useState<string[]>([]);
  useEffect(() => {
    if (!bridge) return;
    let alive = true;
    void Promise.all([bridge.listCombos(), bridge.listProviders()]).then(([combos, providers]) => {
      if (!alive) return;
      setTargets([
        ...(combos.ok ? combos.data.map((c) => c.name) : []),
        ...(providers.ok ? providers.data.flatMap((p) => p.models.map((m) => `${p.id}/${m}`)) : []),
      ]);
    });
    return () => {
      alive = false;
    };
  }, [bridge]);
  return targets;
}

/** Replay, Replay on…, Copy as curl: for a request whose client body was captured. */
export function ReplayControls({ detail }: { detail: RequestLogDetail }) {
  const bridge = useDashboard((s) => s.bridge);
  const notify = useDashboard((s) => s.notify);
  const baseUrl = useDashboard((s) => s.snapshot?.gateway.baseUrl ?? window.location.origin);
  const targets = useTargets();
  const [target, setTarget] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<string | null>(null);
  const client = detail.client;
  if (!client || client.body === null || client.truncated) {
    return <p className="muted small">Not replayable: the client's request was not kept whole.</p>;
  }
  const replay = async (on?: string) => {
    if (!bridge) return;
    setBusy(true);
    try {
      const r = await bridge.replayLog(detail.id, on);
      if (r.ok) setOutcome(`Replayed as request ${r.data.id}: HTTP ${r.data.status}`);
      else notify('bad', r.error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="replay-controls">
      <button type="button" className="btn btn-primary" disabled={busy} onClick={() => replay()}>
        Replay
      </button>
      <label>
        <span className="sr-only">Target to replay on</span>
        <select value={target} onChange={(e) => setTarget(e.target.value)}>
          <option value="">Choose a target…</option>
          {targets.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="btn"
        disabled={busy || target === ''}
        onClick={() => replay(target)}
      >
        Replay on…
      </button>
      <CopyButton text={curlOf(client, baseUrl)} label="Copy as curl" />
      {outcome && (
        <output className="small" data-testid="replay-outcome">
          {outcome}
        </output>
      )}
    </div>
  );
}
