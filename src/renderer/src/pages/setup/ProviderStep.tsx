import { useState } from 'react';
import type { Choice } from './setup-model';
import { modelsOf } from './setup-model';

/** Step 1: the providers found ready (checked), plus any other from the catalog. */
export function ProviderStep({
  choices,
  onChange,
}: {
  choices: Choice[];
  onChange(next: Choice[]): void;
}) {
  const [adding, setAdding] = useState('');
  const update = (id: string, patch: Partial<Choice>) =>
    onChange(choices.map((c) => (c.preset.id === id ? { ...c, ...patch } : c)));
  const shown = choices.filter((c) => c.detected || c.selected);
  const others = choices.filter((c) => !c.detected && !c.selected);
  return (
    <div className="form" data-testid="setup-providers">
      {shown.length === 0 && (
        <p className="muted">
          No provider key was found in the environment and no local server answered. Pick one below.
        </p>
      )}
      {shown.map((c) => (
        <fieldset key={c.preset.id} className="setup-choice">
          <label>
            <input
              type="checkbox"
              checked={c.selected}
              onChange={(e) => update(c.preset.id, { selected: e.target.checked })}
            />{' '}
            <strong>{c.preset.name}</strong>{' '}
            <span className="muted small">
              {c.detected?.source === 'env' && `key found in $${c.detected.keyEnv}`}
              {c.detected?.source === 'local' && `server answering at ${c.detected.baseUrl}`} ·{' '}
              {modelsOf(c).length} model(s)
            </span>
          </label>
          {c.selected && !c.detected && c.preset.authClass !== 'local' && (
            <div className="setup-key">
              <label>
                Key variable{' '}
                <input
                  value={c.keyEnv}
                  onChange={(e) => update(c.preset.id, { keyEnv: e.target.value })}
                />
              </label>{' '}
              <label>
                or paste the key{' '}
                <input
                  type="password"
                  autoComplete="off"
                  value={c.apiKey}
                  onChange={(e) => update(c.preset.id, { apiKey: e.target.value, keyEnv: '' })}
                />
              </label>
            </div>
          )}
          {c.selected && c.preset.note && (
            <label className="small">
              {c.preset.note}{' '}
              <input
                value={c.baseUrl}
                onChange={(e) => update(c.preset.id, { baseUrl: e.target.value })}
              />
            </label>
          )}
        </fieldset>
      ))}
      <label>
        Add another provider{' '}
        <select
          aria-label="Add another provider"
          value={adding}
          onChange={(e) => {
            setAdding('');
            update(e.target.value, { selected: true });
          }}
        >
          <option value="">Choose…</option>
          {others.map((c) => (
            <option key={c.preset.id} value={c.preset.id}>
              {c.preset.name}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
