import type { ComboConfig } from '../../../../shared/contract';
import { targetRefOf } from '../../../../shared/schema/combo';
import { Card, Empty } from '../../components/ui';

/**
 * The combos that route to these providers, at a glance; they are added and edited, with their
 * strategies and what each did, in the Combos section below.
 */
export function Combos({ combos }: { combos: ComboConfig[]; reload(): void }) {
  return (
    <Card title="Combos using these providers">
      {combos.length === 0 ? (
        <Empty>No combos yet: add one in the Combos section below.</Empty>
      ) : (
        <ul className="plain">
          {combos.map((c) => (
            <li key={c.name} className="row">
              <span>
                <strong>{c.name}</strong> <span className="muted small">{c.strategy}</span>
              </span>
              <span className="small">{c.targets.map(targetRefOf).join(' → ')}</span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
