import type { CapturedAttempt } from '../../../../shared/contract';
import { Badge } from '../../components/ui';
import { CapturedBody } from './CapturedBody';

function Headers({ headers }: { headers: Record<string, string> }) {
  const names = Object.keys(headers);
  if (names.length === 0) return null;
  return (
    <details>
      <summary className="small">Headers ({names.length})</summary>
      <pre>{names.map((n) => `${n}: ${headers[n]}`).join('\n')}</pre>
    </details>
  );
}

/** One upstream attempt: what was sent beside what came back. */
export function AttemptView({ attempt: a, index }: { attempt: CapturedAttempt; index: number }) {
  return (
    <section className="attempt" aria-label={`Attempt ${index + 1}: ${a.target}`}>
      <h4>
        Attempt {index + 1}: {a.target} <span className="muted">@{a.connection}</span>{' '}
        <Badge
          tone={a.status === null || a.status >= 500 ? 'bad' : a.status >= 400 ? 'warn' : 'ok'}
        >
          {a.status ?? 'no answer'}
        </Badge>{' '}
        <span className="muted small">{a.durationMs ?? '–'} ms</span>
      </h4>
      <div className="attempt-sides">
        <div className="attempt-side" data-testid="attempt-request">
          <h5>Request</h5>
          <p className="small">
            <code>
              {a.request.method} {a.request.url}
            </code>
          </p>
          <Headers headers={a.request.headers} />
          <CapturedBody message={a.request} />
        </div>
        <div className="attempt-side" data-testid="attempt-response">
          <h5>Response</h5>
          {a.response ? (
            <>
              <p className="small">HTTP {a.response.status}</p>
              <Headers headers={a.response.headers} />
              <CapturedBody message={a.response} />
            </>
          ) : (
            <p className="text-bad small">{a.error ?? 'Nothing answered.'}</p>
          )}
        </div>
      </div>
    </section>
  );
}
