import { type FormEvent, useState } from 'react';
import type { ComboConfig } from '../../../../shared/contract';
import { Card, Empty } from '../../components/ui';
import { useDashboard } from '../../state/store';
import { DeleteButton, FormFooter } from './form-parts';

export function Combos({ combos, reload }: { combos: ComboConfig[]; reload(): void }) {
  const bridge = useDashboard((s) => s.bridge);
  const notify = useDashboard((s) => s.notify);
  const [name, setName] = useState('');
  const [targets, setTargets] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!bridge) return;
    const r = await bridge.saveCombo({
      name: name.trim(),
      strategy: 'priority',
      targets: targets.split(/[\s,]+/).filter(Boolean),
    });
    if (!r.ok) return setError(r.error);
    setError(null);
    setName('');
    setTargets('');
    notify('ok', `Combo ${r.data.name} saved`);
    reload();
  };
  return (
    <Card title="Combos">
      {combos.length === 0 ? (
        <Empty>No combos: a combo is a model name that fails over across targets.</Empty>
      ) : (
        <ul className="plain">
          {combos.map((c) => (
            <li key={c.name} className="row">
              <span>
                <strong>{c.name}</strong> <span className="muted small">{c.strategy}</span>
              </span>
              <span className="small">{c.targets.join(' → ')}</span>
              {bridge && (
                <DeleteButton
                  remove={() => bridge.deleteCombo(c.name)}
                  reload={reload}
                  done={`Combo ${c.name} deleted`}
                  confirm={`Delete combo ${c.name}?`}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      <form className="form" onSubmit={submit} aria-label="Add combo">
        <div className="form-grid">
          <label>
            Name
            <input
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              placeholder="coder"
            />
          </label>
          <label className="wide">
            Targets in priority order (provider/model)
            <input
              value={targets}
              onChange={(e) => setTargets(e.target.value)}
              required
              placeholder="anthropic/claude-sonnet-4-5, openai/gpt-5"
            />
          </label>
        </div>
        <FormFooter error={error} submit="Save combo" plain />
      </form>
    </Card>
  );
}
