import { useEffect, useMemo, useState } from 'react';
import type { LogQuery, RequestLogEntry } from '../../../../shared/contract';
import { Card, Empty, TableHead } from '../../components/ui';
import { useDashboard } from '../../state/store';
import { RequestFilters } from './RequestFilters';
import { RequestRow } from './RequestRow';

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

  return (
    <>
      <div className="section-head">
        <h2>Requests</h2>
      </div>
      <RequestFilters query={query} setQuery={setQuery} />
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
                <RequestRow
                  key={r.id}
                  entry={r}
                  open={open === r.id}
                  toggle={() => setOpen(open === r.id ? null : r.id)}
                />
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </>
  );
}
