import type { Dispatch, SetStateAction } from 'react';
import type { LogQuery } from '../../../../shared/contract';
import { useDashboard } from '../../state/store';

/** Narrows the log by provider, connection and status; the connections follow the provider. */
export function RequestFilters({
  query,
  setQuery,
}: {
  query: LogQuery;
  setQuery: Dispatch<SetStateAction<LogQuery>>;
}) {
  const snapshot = useDashboard((s) => s.snapshot);
  const providers = [...new Set(snapshot?.connections.map((c) => c.provider) ?? [])];
  const connections =
    snapshot?.connections.filter((c) => !query.provider || c.provider === query.provider) ?? [];
  return (
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
  );
}
