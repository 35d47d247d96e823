import type { RequestLogEntry } from '../../../../shared/contract';
import { Badge } from '../../components/ui';
import { formatTime } from '../../hooks';
import { RequestDetail } from './RequestDetail';

/** One logged request; clicking it (or Enter, or Space) opens its detail underneath. */
export function RequestRow({
  entry: r,
  open,
  toggle,
}: {
  entry: RequestLogEntry;
  open: boolean;
  toggle(): void;
}) {
  return (
    <>
      <tr
        className="clickable"
        tabIndex={0}
        aria-expanded={open}
        onClick={toggle}
        onKeyDown={(e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            toggle();
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
          <Badge tone={r.status >= 500 || r.status === 0 ? 'bad' : r.status >= 400 ? 'warn' : 'ok'}>
            {r.status || 'none'}
          </Badge>
        </td>
        <td className="num">{r.latencyMs} ms</td>
        <td className="num">
          {r.inputTokens ?? '–'}/{r.outputTokens ?? '–'}
        </td>
      </tr>
      {open && <RequestDetail entry={r} />}
    </>
  );
}
