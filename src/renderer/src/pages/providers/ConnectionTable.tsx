import type { ConnectionView, ProviderView } from '../../../../shared/contract';
import { connectionBadge } from '../../components/connection-badge';
import { Badge, Countdown } from '../../components/ui';
import { useDashboard } from '../../state/store';
import { ConnectionTest } from './ConnectionTest';
import { DeleteButton } from './form-parts';

/** A provider's connections with their live state; `editing` is the one whose form is open. */
export function ConnectionTable({
  provider,
  editing,
  onEdit,
  reload,
}: {
  provider: ProviderView;
  editing: string | null;
  onEdit(conn: ConnectionView): void;
  reload(): void;
}) {
  const bridge = useDashboard((s) => s.bridge);
  const snapshot = useDashboard((s) => s.snapshot);
  return (
    <table className="table compact">
      <tbody>
        {provider.connections.length === 0 && (
          <tr>
            <td className="muted">No connections: add one to use this provider.</td>
          </tr>
        )}
        {provider.connections.map((c) => {
          const state = snapshot?.connections.find((s) => s.id === c.id);
          const badge = state && snapshot ? connectionBadge(state, snapshot.at) : null;
          return (
            <tr key={c.id} data-testid={`connection-${c.id}`}>
              <td>{c.id}</td>
              <td>{badge && <Badge tone={badge.tone}>{badge.text}</Badge>}</td>
              <td className="num">
                {state?.rateLimitedUntil && snapshot && state.rateLimitedUntil > snapshot.at ? (
                  <Countdown until={state.rateLimitedUntil} />
                ) : null}
              </td>
              <td className="muted small">
                {c.apiKeyEnv ? `$${c.apiKeyEnv}` : 'stored key'}
                {!c.hasSecret && <span className="text-bad"> · no secret</span>}
              </td>
              <td className="num small">
                {state ? `backoff ${state.backoffLevel}` : ''}
                {c.maxConcurrent ? ` · max ${c.maxConcurrent}` : ''}
                {c.rateLimit?.concurrency ? ` · queue ${c.rateLimit.concurrency}` : ''}
                {c.rateLimit?.requestsPerMinute ? ` · ${c.rateLimit.requestsPerMinute}/min` : ''}
                {c.disableCooling ? ' · no cooling' : ''}
              </td>
              <td className="error-cell small" title={state?.lastError ?? ''}>
                {state?.lastError ?? ''}
              </td>
              <td>
                <ConnectionTest id={c.id} />
              </td>
              <td className="row-actions">
                {bridge && (
                  <button
                    type="button"
                    className="btn"
                    aria-label={`Edit connection ${c.id}`}
                    aria-expanded={editing === c.id}
                    onClick={() => onEdit(c)}
                  >
                    Edit
                  </button>
                )}{' '}
                {bridge && (
                  <DeleteButton
                    remove={() => bridge.deleteConnection(c.id)}
                    reload={reload}
                    done={`Connection ${c.id} deleted`}
                    confirm={`Delete connection ${c.id}?`}
                  />
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
