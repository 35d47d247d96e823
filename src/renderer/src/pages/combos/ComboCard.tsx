import { useState } from 'react';
import type { ComboConfig } from '../../../../shared/contract';
import { targetRefOf, weightOf } from '../../../../shared/schema/combo';
import { ActionButton, Badge, Card } from '../../components/ui';
import { useDashboard } from '../../state/store';
import { ComboForm } from './ComboForm';
import { type ComboActivity, draftOf, intentOf } from './combo-model';

/** One combo: its targets, what the strategy intends next to what it did, the latest reason. */
export function ComboCard({
  combo,
  activity,
  reload,
}: {
  combo: ComboConfig;
  activity: ComboActivity;
  reload(): void;
}) {
  const bridge = useDashboard((s) => s.bridge);
  const [editing, setEditing] = useState(false);
  // The active combo is what the model "default" routes to (also switched from the tray).
  const active = useDashboard((s) => s.snapshot?.gateway.activeCombo === combo.name);
  const weighted = combo.strategy === 'weighted';
  return (
    <Card
      title={
        <>
          {combo.name} <span className="muted small">{combo.strategy}</span>{' '}
          {active && <Badge tone="ok">active: model "default"</Badge>}
        </>
      }
      testId={`combo-${combo.name}`}
      aside={
        bridge && !editing ? (
          <>
            {!active && (
              <ActionButton
                run={() => bridge.updateSettings({ 'routing.activeCombo': combo.name })}
                done={`Requests for the model "default" now go to ${combo.name}`}
                testId={`activate-${combo.name}`}
              >
                Make active
              </ActionButton>
            )}
            <button type="button" className="btn" onClick={() => setEditing(true)}>
              Edit
            </button>
            <ActionButton
              run={async () => {
                const r = await bridge.deleteCombo(combo.name);
                reload();
                return r;
              }}
              done={`Combo ${combo.name} deleted`}
              confirm={`Delete combo ${combo.name}?`}
              tone="danger"
            >
              Delete
            </ActionButton>
          </>
        ) : null
      }
    >
      {editing ? (
        <ComboForm
          initial={draftOf(combo)}
          onDone={() => {
            setEditing(false);
            reload();
          }}
        />
      ) : (
        <>
          <p className="small">
            {combo.targets
              .map((t) => (weighted ? `${targetRefOf(t)} ×${weightOf(t)}` : targetRefOf(t)))
              .join(' → ')}
          </p>
          <p className="small">
            <strong>Intends:</strong> {intentOf(combo)}
          </p>
          {combo.options?.contextEditing !== undefined && (
            <p className="small">
              <strong>Context editing:</strong>{' '}
              {combo.options.contextEditing
                ? 'on for this combo (a prompt too long loses its oldest turns)'
                : 'off for this combo (a prompt too long goes to a larger window)'}
            </p>
          )}
          <p className="small">
            <strong>Did</strong> (last {activity.total} requests):{' '}
            {activity.total === 0
              ? 'no requests yet'
              : activity.split
                  .map((s) => `${s.target} ${Math.round(s.share * 100)}% (${s.count})`)
                  .join(', ')}
          </p>
          <p className="small muted" data-testid={`combo-${combo.name}-latest`}>
            Latest pick: {activity.latest ?? '—'}
          </p>
        </>
      )}
    </Card>
  );
}
