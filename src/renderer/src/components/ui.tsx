import { type ReactNode, useState } from 'react';
import type { BridgeResult } from '../../../shared/contract';
import { formatDuration, useEngineNow } from '../hooks';
import { useDashboard } from '../state/store';

export type Tone = 'ok' | 'warn' | 'bad' | 'idle' | 'info';

export function Badge({ tone, children }: { tone: Tone; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

/** Time left until `until` (engine clock); "now" once passed. Fixed width: no jumps. */
export function Countdown({ until, prefix = '' }: { until: number | null; prefix?: string }) {
  const now = useEngineNow();
  if (until === null) return null;
  const left = until - now;
  return (
    <span className="countdown" data-testid="countdown">
      {left > 0 ? `${prefix}${formatDuration(left)}` : 'due now'}
    </span>
  );
}

export function Card({
  title,
  aside,
  children,
  className = '',
  testId,
}: {
  title: ReactNode;
  aside?: ReactNode;
  children: ReactNode;
  className?: string;
  testId?: string;
}) {
  return (
    <section className={`card ${className}`} data-testid={testId}>
      <header className="card-head">
        <h3>{title}</h3>
        {aside && <div className="card-aside">{aside}</div>}
      </header>
      {children}
    </section>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** A card listing `items`, or saying `empty` when there are none. */
export function ListCard({
  title,
  testId,
  items,
  empty,
  children,
}: {
  title: ReactNode;
  testId?: string;
  items: readonly unknown[];
  empty: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card title={title} testId={testId}>
      {items.length === 0 ? <Empty>{empty}</Empty> : children}
    </Card>
  );
}

/** A table's header row; `actions` adds a last column for row buttons, named for screen readers. */
export function TableHead({ columns, actions = false }: { columns: string[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th key={c} scope="col">
            {c}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span className="sr-only">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      className="btn btn-small"
      aria-label={`${label}: ${text}`}
      onClick={() => {
        void navigator.clipboard
          .writeText(text)
          .then(() => {
            setDone(true);
            setTimeout(() => setDone(false), 1500);
          })
          .catch(() =>
            useDashboard.getState().notify('bad', 'The clipboard is not available here'),
          );
      }}
    >
      <span className="btn-fixed">{done ? 'Copied' : label}</span>
    </button>
  );
}

/** A button that runs a bridge action, shows it is busy, and reports the outcome. */
export function ActionButton({
  run,
  children,
  done,
  tone = 'normal',
  confirm,
  testId,
}: {
  run: () => Promise<BridgeResult<unknown>>;
  children: ReactNode;
  /** Message after success. */
  done: string;
  tone?: 'normal' | 'primary' | 'danger';
  confirm?: string;
  testId?: string;
}) {
  const [busy, setBusy] = useState(false);
  const notify = useDashboard((s) => s.notify);
  const refresh = useDashboard((s) => s.refresh);
  return (
    <button
      type="button"
      className={`btn btn-${tone}`}
      disabled={busy}
      aria-busy={busy}
      data-testid={testId}
      onClick={async () => {
        if (confirm && !window.confirm(confirm)) return;
        setBusy(true);
        try {
          const result = await run();
          if (result.ok) notify('ok', done);
          else notify('bad', result.error);
          await refresh();
        } finally {
          setBusy(false);
        }
      }}
    >
      {children}
    </button>
  );
}
