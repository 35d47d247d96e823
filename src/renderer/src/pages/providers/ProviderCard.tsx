import { useState } from 'react';
import type { ConnectionView, ProviderView } from '../../../../shared/contract';
import { Badge, Card } from '../../components/ui';
import { useDashboard } from '../../state/store';
import { ConnectionForm } from './ConnectionForm';
import { ConnectionTable } from './ConnectionTable';
import { DeleteButton } from './form-parts';
import { ProviderForm } from './ProviderForm';
import { providerDraft } from './provider-model';

export function ProviderCard({ p, reload }: { p: ProviderView; reload(): void }) {
  const bridge = useDashboard((s) => s.bridge);
  const snapshot = useDashboard((s) => s.snapshot);
  // `connection`: the connection form, editing that connection, or adding one when null.
  const [mode, setMode] = useState<
    { kind: 'view' } | { kind: 'edit' } | { kind: 'connection'; conn: ConnectionView | null }
  >({ kind: 'view' });
  const breaker = snapshot?.breakers.find((b) => b.provider === p.id);
  const closeForm = () => {
    setMode({ kind: 'view' });
    reload();
  };
  return (
    <Card
      testId={`provider-${p.id}`}
      title={
        <>
          {p.id}{' '}
          <span className="muted small">
            {p.format} · {p.authClass.replace('_', ' ')}
          </span>
        </>
      }
      aside={
        <>
          {!p.enabled && <Badge tone="idle">disabled</Badge>}
          {breaker && breaker.state !== 'CLOSED' && (
            <Badge tone={breaker.state === 'OPEN' ? 'bad' : 'warn'}>
              circuit {breaker.state.replace('_', '-')}
            </Badge>
          )}
        </>
      }
    >
      <p className="muted small">
        <code>{p.baseUrl}</code> · {p.models.length > 0 ? p.models.join(', ') : 'no models listed'}
        {Object.keys(p.quotaFamilies).length > 0 &&
          ` · quota families: ${Object.keys(p.quotaFamilies).join(', ')}`}
      </p>
      <ConnectionTable
        provider={p}
        editing={mode.kind === 'connection' ? (mode.conn?.id ?? null) : null}
        onEdit={(conn) => setMode({ kind: 'connection', conn })}
        reload={reload}
      />
      {mode.kind === 'edit' && <ProviderForm initial={providerDraft(p)} onDone={closeForm} />}
      {mode.kind === 'connection' && (
        <ConnectionForm
          key={mode.conn?.id ?? ''}
          provider={p}
          initial={mode.conn}
          onDone={closeForm}
        />
      )}
      {mode.kind === 'view' && bridge && (
        <div className="form-actions">
          <button
            type="button"
            className="btn"
            onClick={() => setMode({ kind: 'connection', conn: null })}
          >
            Add connection
          </button>
          <button type="button" className="btn" onClick={() => setMode({ kind: 'edit' })}>
            Edit
          </button>
          <DeleteButton
            remove={() => bridge.deleteProvider(p.id)}
            reload={reload}
            done={`Provider ${p.id} deleted`}
            confirm={`Delete provider ${p.id} and its connections?`}
          />
        </div>
      )}
    </Card>
  );
}
