import { Fragment, useEffect, useMemo, useState } from 'react';
import type { LogQuery, RequestLogEntry } from '../../../../shared/contract';
import { Badge, Card, Empty, TableHead } from '../../components/ui';
import { formatTime } from '../../hooks';
import { useDashboard } from '../../state/store';

function matches(e: RequestLogEntry, q: LogQuery): boolean {
  if (q.provider && e.provider !== q.provider) return false;
  if (q.connection && e.connection !== q.connection) return false;
  if (q.status !== undefined && e.status !== q.status) return false;
  if (q.errorsOnly && e.status < 400) return false;
  return true;
}

export function Requests() {
  const bridge = useDashboard((s) => s.bridge);
  const recent = useDashboard((s) => s.recent);
  const snapshot = useDashboard((s) => s.snapshot);
  const [query, setQuery] = useState<LogQuery>({});
  const [loaded, setLoaded] = useState<RequestLogEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<number | null>(null);

  // The server filters history; live rows (already in the store) are merged in on top.
  useEffect(() => {
    if (!bridge) return;
    let alive = true;
    void bridge.getLogs(200, query).then((r) => {
      if (!alive) return;
      if (r.ok) {
        setLoaded(r.data);
        setError(null);
      } else setError(r.error);
    });
    return () => {
      alive = false;
    };
  }, [bridge, query]);

  const rows = useMemo(() => {
    const byId = new Map<number, RequestLogEntry>();
    for (const r of loaded ?? []) byId.set(r.id, r);
    for (const r of recent) if (matches(r, query)) byId.set(r.id, r);
    return [...byId.values()].sort((a, b) => b.id - a.id).slice(0, 200);
  }, [loaded, recent, query]);

  const providers = [...new Set(snapshot?.connections.map((c) => c.provider) ?? [])];
  const connections =
    snapshot?.connections.filter((c) => !query.provider || c.provider === query.provider) ?? [];

  return (
    <>
      <div className="section-head">
        <h2>Requests</h2>
      </div>
      <form className="filters" aria-label="Filter requests" onSubmit={(e) => e.preventDefault()}>
        <label>
          Provider
          <select
            value={query.provider ?? ''}
            onChange={(e) =>
              setQuery((q) => ({
                ...q,
                provider: e.target.value || undefined,
                connection: undefined,
              }))
            }
          >
            <option value="">any</option>
            {providers.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </label>
        <label>
          Connection
          <select
            value={query.connection ?? ''}
            onChange={(e) => setQuery((q) => ({ ...q, connection: e.target.value || undefined }))}
          >
            <option value="">any</option>
            {connections.map((c) => (
              <option key={c.id}>{c.id}</option>
            ))}
          </select>
        </label>
        <label>
          Status
          <input
            inputMode="numeric"
            placeholder="any"
            value={query.status ?? ''}
            onChange={(e) => {
              const n = Number(e.target.value);
              setQuery((q) => ({
                ...q,
                status: e.target.value && Number.isInteger(n) ? n : undefined,
              }));
            }}
          />
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={query.errorsOnly ?? false}
            onChange={(e) => setQuery((q) => ({ ...q, errorsOnly: e.target.checked || undefined }))}
          />
          Errors only
        </label>
      </form>
      <Card title="Request log" aside={<span className="muted small">newest first · live</span>}>
        {error && <p className="text-bad">Could not load the log: {error}</p>}
        {rows.length === 0 ? (
          <Empty>{loaded === null ? 'Loading…' : 'No requests match.'}</Empty>
        ) : (
          <table className="table requests">
            <TableHead
              columns={['Time', 'Model', 'Served by', 'Status', 'Latency', 'Tokens in/out']}
            />
            <tbody>
              {rows.map((r) => (
                <Fragment key={r.id}>
                  <tr
                    className="clickable"
                    tabIndex={0}
                    aria-expanded={open === r.id}
                    onClick={() => setOpen(open === r.id ? null : r.id)}
                    onKeyDown={(e) => {
                      if (e.key === 'Enter' || e.key === ' ') {
                        e.preventDefault();
                        setOpen(open === r.id ? null : r.id);
                      }
                    }}
                  >
                    <td className="num">{formatTime(r.at)}</td>
                    <td>
                      {r.modelRequested}
                      {r.stream && <span className="muted small"> · stream</span>}
                    </td>
                    <td>
                      {r.target ? (
                        `${r.target}${r.connection ? ` @${r.connection}` : ''}`
                      ) : (
                        <span className="muted">–</span>
                      )}
                    </td>
                    <td>
                      <Badge
                        tone={
                          r.status >= 500 || r.status === 0
                            ? 'bad'
                            : r.status >= 400
                              ? 'warn'
                              : 'ok'
                        }
                      >
                        {r.status || 'none'}
                      </Badge>
                    </td>
                    <td className="num">{r.latencyMs} ms</td>
                    <td className="num">
                      {r.inputTokens ?? '–'}/{r.outputTokens ?? '–'}
                    </td>
                  </tr>
                  {open === r.id && (
                    <tr className="detail">
                      <td colSpan={6}>
                        <dl className="kv">
                          <dt>Routing decision</dt>
                          <dd>{r.decision ?? 'none recorded'}</dd>
                          {r.errorClass && (
                            <>
                              <dt>Error</dt>
                              <dd>
                                <code>{r.errorClass}</code> {r.errorMessage}
                              </dd>
                            </>
                          )}
                          <dt>Client format</dt>
                          <dd>{r.clientFormat}</dd>
                          <dt>Time to first byte</dt>
                          <dd>{r.ttfbMs === null ? '–' : `${r.ttfbMs} ms`}</dd>
                          <dt>Bytes in/out</dt>
                          <dd>
                            {r.bytesIn} / {r.bytesOut}
                          </dd>
                          {r.egressIp && (
                            <>
                              <dt>Egress IP</dt>
                              <dd>{r.egressIp}</dd>
                            </>
                          )}
                        </dl>
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </>
  );
}
