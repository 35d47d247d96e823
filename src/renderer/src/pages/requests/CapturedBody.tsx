import type { CapturedMessage } from '../../../../shared/contract';

/** A JSON text pretty-printed, else as it is. */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

const SSE_LINE = /^(data|event|id|retry|):/;

/** A captured body: JSON pretty-printed, an event stream as its events, one block each. */
export function CapturedBody({ message }: { message: CapturedMessage }) {
  const body = message.body;
  if (body === null) return <p className="muted small">Body not kept.</p>;
  const events = SSE_LINE.test(body) ? body.split(/\r?\n\r?\n/).filter((e) => e.trim()) : null;
  return (
    <div className="captured-body">
      {events ? (
        <ol className="sse-events" aria-label="Stream events">
          {events.map((e, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: events have no identity of their own
            <li key={i}>
              <pre>
                {e
                  .split(/\r?\n/)
                  .map((line) =>
                    line.startsWith('data: ') ? `data: ${pretty(line.slice(6))}` : line,
                  )
                  .join('\n')}
              </pre>
            </li>
          ))}
        </ol>
      ) : (
        <pre>{pretty(body)}</pre>
      )}
      {message.truncated && <p className="muted small">Cut: longer than what was kept.</p>}
    </div>
  );
}
