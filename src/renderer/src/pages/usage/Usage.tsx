import { useCallback, useEffect, useState } from 'react';
import type {
  GatewayKeyView,
  UsageGroupBy,
  UsageReport,
  UsageRow,
} from '../../../../shared/contract';
import { Card, Empty, TableHead } from '../../components/ui';
import { useDashboard } from '../../state/store';
import { downloadCsv } from './csv';
import { KeysTable } from './KeysTable';
import { QuotaBars } from './QuotaBars';
import { SessionCache } from './SessionCache';
import { type Measure, UsageChart } from './UsageChart';

const RANGES = [
  { label: 'Last hour', since: '1h', step: '1m' },
  { label: 'Last day', since: '24h', step: '1h' },
  { label: 'Last 30 days', since: '30d', step: '1d' },
] as const;

const BY: readonly UsageGroupBy[] = ['model', 'provider', 'key'];

interface Data {
  chart: UsageReport;
  sessions: UsageRow[];
  connections: UsageRow[];
  keys: GatewayKeyView[];
}

function pct(rate: number | null | undefined): string {
  return rate == null ? '-' : `${(100 * rate).toFixed(1)} %`;
}

/** One table of usage rows, with a CSV export of what it shows. */
function RowsTable({
  title,
  rows,
  first,
  file,
  testId,
}: {
  title: string;
  rows: UsageRow[];
  first: string;
  file: string;
  testId: string;
}) {
  const header = [first, 'Requests', 'Input', 'Output', 'Cache read', 'Cache hit', 'Cost (USD)'];
  const cells = rows.map((r) => [
    r.group || '(none)',
    r.requests,
    r.inputTokens,
    r.outputTokens,
    r.cacheReadTokens,
    pct(r.cacheHitRate),
    Number(r.costUsd.toFixed(6)),
  ]);
  return (
    <Card
      title={title}
      testId={testId}
      aside={
        <button type="button" onClick={() => downloadCsv(file, header, cells)}>
          CSV
        </button>
      }
    >
      {rows.length === 0 ? (
        <Empty>No requests in this time.</Empty>
      ) : (
        <table className="table">
          <TableHead columns={header} />
          <tbody>
            {cells.map((c) => (
              <tr key={String(c[0])}>
                {c.map((v, i) => (
                  <td key={header[i]}>{v}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}

export function Usage() {
  const bridge = useDashboard((s) => s.bridge);
  const recent = useDashboard((s) => s.recent);
  const [range, setRange] = useState<(typeof RANGES)[number]>(RANGES[1]);
  const [by, setBy] = useState<UsageGroupBy>('model');
  const [measure, setMeasure] = useState<Measure>('tokens');
  const [data, setData] = useState<Data | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    if (!bridge) return;
    const [chart, sessions, connections, keys] = await Promise.all([
      bridge.getUsage({ since: range.since, by, step: range.step }),
      bridge.getUsage({ since: range.since, by: 'session' }),
      bridge.getUsage({ since: range.since, by: 'connection' }),
      bridge.listKeys(),
    ]);
    const failed = [chart, sessions, connections, keys].find((r) => !r.ok);
    if (failed && !failed.ok) return setError(failed.error);
    if (!chart.ok || !sessions.ok || !connections.ok || !keys.ok) return;
    setError(null);
    setData({
      chart: chart.data,
      sessions: sessions.data.rows.filter((r) => r.group !== '').slice(0, 10),
      connections: connections.data.rows.filter((r) => r.group !== ''),
      keys: keys.data,
    });
  }, [bridge, range, by]);

  // Reloaded when the range or grouping changes, and as requests complete (debounced).
  const lastRequest = recent[0]?.id ?? 0;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a completed request is the trigger
  useEffect(() => {
    const t = setTimeout(() => void load(), 300);
    return () => clearTimeout(t);
  }, [load, lastRequest]);

  return (
    <>
      <div className="section-head">
        <h2>Usage</h2>
      </div>
      <form className="filters" aria-label="Usage view" onSubmit={(e) => e.preventDefault()}>
        <label>
          Time
          <select
            value={range.since}
            onChange={(e) => setRange(RANGES.find((r) => r.since === e.target.value) ?? RANGES[1])}
          >
            {RANGES.map((r) => (
              <option key={r.since} value={r.since}>
                {r.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Stacked by
          <select value={by} onChange={(e) => setBy(e.target.value as UsageGroupBy)}>
            {BY.map((b) => (
              <option key={b} value={b}>
                {b}
              </option>
            ))}
          </select>
        </label>
        <label>
          Show
          <select value={measure} onChange={(e) => setMeasure(e.target.value as Measure)}>
            <option value="tokens">Tokens</option>
            <option value="cost">Cost (USD)</option>
          </select>
        </label>
      </form>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {data && (
        <>
          <Card title={measure === 'cost' ? 'Cost over time' : 'Tokens over time'}>
            {data.chart.series && data.chart.series.length > 0 ? (
              <UsageChart points={data.chart.series} measure={measure} since={data.chart.since} />
            ) : (
              <Empty>No requests in this time.</Empty>
            )}
          </Card>
          <RowsTable
            title={`By ${by}`}
            rows={data.chart.rows}
            first={by}
            file={`breakwater-usage-by-${by}.csv`}
            testId="usage-totals"
          />
          <KeysTable keys={data.keys} reload={() => void load()} />
          <QuotaBars />
          <RowsTable
            title="Top sessions"
            rows={data.sessions}
            first="session"
            file="breakwater-top-sessions.csv"
            testId="usage-sessions"
          />
          <SessionCache lastRequest={lastRequest} />
          <RowsTable
            title="Prompt cache by connection"
            rows={data.connections}
            first="connection"
            file="breakwater-cache-by-connection.csv"
            testId="usage-cache"
          />
        </>
      )}
    </>
  );
}
