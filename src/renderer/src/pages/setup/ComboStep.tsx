import type { ComboStrategy } from '../../../../shared/contract';
import { type Choice, modelsOf, WIZARD_STRATEGIES } from './setup-model';

export interface ComboDraft {
  name: string;
  strategy: ComboStrategy;
  /** Provider id → the model of it the combo uses ('' leaves the provider out). */
  models: Record<string, string>;
}

/** Step 2: a first combo: one model of each chosen provider, in order, and its strategy. */
export function ComboStep({
  choices,
  live,
  draft,
  onChange,
}: {
  choices: Choice[];
  /** Provider id → the models it listed itself, offered instead of the preset's. */
  live: Record<string, string[]>;
  draft: ComboDraft;
  onChange(next: ComboDraft): void;
}) {
  return (
    <div className="form" data-testid="setup-combo">
      <label>
        Combo name{' '}
        <input value={draft.name} onChange={(e) => onChange({ ...draft, name: e.target.value })} />
      </label>
      <label>
        Strategy{' '}
        <select
          value={draft.strategy}
          onChange={(e) => onChange({ ...draft, strategy: e.target.value as ComboStrategy })}
        >
          {WIZARD_STRATEGIES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      {choices.map((c) => (
        <label key={c.preset.id}>
          {c.preset.name}{' '}
          <select
            aria-label={`Model of ${c.preset.name}`}
            value={draft.models[c.preset.id] ?? ''}
            onChange={(e) =>
              onChange({ ...draft, models: { ...draft.models, [c.preset.id]: e.target.value } })
            }
          >
            <option value="">(not in this combo)</option>
            {(live[c.preset.id] ?? modelsOf(c)).map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
      ))}
    </div>
  );
}
