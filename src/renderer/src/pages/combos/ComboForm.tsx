import { type FormEvent, useEffect, useId, useState } from 'react';
import type { ComboStrategy } from '../../../../shared/contract';
import { COMMON_OPTIONS, STRATEGIES, STRATEGY_OPTIONS } from '../../../../shared/schema/combo';
import { useDashboard } from '../../state/store';
import { type ComboDraft, comboOf, intentOf } from './combo-model';

interface OptionField {
  key: string;
  label: string;
  hint: string;
  /** A target picker (one, or one a line); a number otherwise. */
  kind?: 'target' | 'targets';
}

/** The inputs an option takes (auto's weights are five numbers). */
const OPTION_FIELDS: Record<string, OptionField[]> = {
  panel: [
    { key: 'panel', label: 'Panel targets, one a line', hint: 'openai/gpt-5', kind: 'targets' },
  ],
  judge: [{ key: 'judge', label: 'Judge target', hint: 'openai/gpt-5', kind: 'target' }],
  summarizer: [
    { key: 'summarizer', label: 'Summarizer target', hint: 'openai/gpt-5-mini', kind: 'target' },
  ],
  stickyLimit: [{ key: 'stickyLimit', label: 'Requests a turn', hint: '1' }],
  windowMs: [{ key: 'windowMs', label: 'Window (ms)', hint: '300000' }],
  weights: ['health', 'latency', 'errorRate', 'cost', 'headroom'].map((w) => ({
    key: `weights.${w}`,
    label: `Weight of ${w}`,
    hint: '0-100',
  })),
};

function common(options: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of COMMON_OPTIONS) if (options[key] !== undefined) out[key] = options[key];
  return out;
}

export function ComboForm({ initial, onDone }: { initial: ComboDraft; onDone(): void }) {
  const bridge = useDashboard((s) => s.bridge);
  const notify = useDashboard((s) => s.notify);
  const [draft, setDraft] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const uid = useId();
  const editing = initial.name !== '';
  const checked = comboOf(draft);
  // The configured models, offered by the target pickers.
  const [known, setKnown] = useState<string[]>([]);
  useEffect(() => {
    void bridge
      ?.listProviders()
      .then((r) => r.ok && setKnown(r.data.flatMap((p) => p.models.map((m) => `${p.id}/${m}`))));
  }, [bridge]);
  const fusion = draft.strategy === 'fusion';
  const fields = (STRATEGY_OPTIONS[draft.strategy] ?? []).flatMap((o) => OPTION_FIELDS[o] ?? []);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!bridge) return;
    if ('error' in checked) return setError(checked.error);
    const r = await bridge.saveCombo(checked.combo);
    if (!r.ok) return setError(r.field ? `${r.field}: ${r.error}` : r.error);
    setError(null);
    notify('ok', `Combo ${r.data.name} saved`);
    onDone();
  };
  return (
    <form
      className="form"
      onSubmit={submit}
      aria-label={editing ? `Edit combo ${initial.name}` : 'Add combo'}
    >
      <div className="form-grid">
        <label>
          Name
          <input
            value={draft.name}
            disabled={editing}
            onChange={(e) => setDraft({ ...draft, name: e.target.value })}
            required
            placeholder="coder"
          />
        </label>
        <label>
          Strategy
          <select
            value={draft.strategy}
            onChange={(e) =>
              // Options belong to their strategy: another strategy starts without them, but for
              // the ones every strategy reads.
              setDraft({
                ...draft,
                strategy: e.target.value as ComboStrategy,
                options: common(draft.options),
              })
            }
          >
            {STRATEGIES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        {!fusion && (
          <label className="wide">
            Targets, one a line (provider/model, @connection to pin one, *weight for weighted)
            <textarea
              rows={4}
              value={draft.targets}
              onChange={(e) => setDraft({ ...draft, targets: e.target.value })}
              required
              placeholder={'anthropic/claude-sonnet-4-5 *3\nopenai/gpt-5'}
              aria-describedby={`${uid}-intent`}
            />
          </label>
        )}
        <label>
          Context editing
          <select
            value={draft.options.contextEditing ?? ''}
            onChange={(e) =>
              setDraft({ ...draft, options: { ...draft.options, contextEditing: e.target.value } })
            }
          >
            <option value="">as the global setting (shapeRepair.contextEditing)</option>
            <option value="true">on: a prompt too long loses its oldest turns</option>
            <option value="false">off: a prompt too long goes to a larger window</option>
          </select>
        </label>
        {fields.map((f) => {
          const value = draft.options[f.key] ?? '';
          const set = (v: string) =>
            setDraft({ ...draft, options: { ...draft.options, [f.key]: v } });
          return (
            <label
              key={f.key}
              htmlFor={`${uid}-${f.key}`}
              className={f.kind === 'targets' ? 'wide' : undefined}
            >
              {f.label}
              {f.kind === 'targets' ? (
                <textarea
                  id={`${uid}-${f.key}`}
                  rows={3}
                  value={value}
                  placeholder={f.hint}
                  onChange={(e) => set(e.target.value)}
                />
              ) : (
                <input
                  id={`${uid}-${f.key}`}
                  inputMode={f.kind ? undefined : 'numeric'}
                  list={f.kind ? `${uid}-targets` : undefined}
                  value={value}
                  placeholder={f.hint}
                  onChange={(e) => set(e.target.value)}
                />
              )}
            </label>
          );
        })}
        <datalist id={`${uid}-targets`}>
          {known.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
      </div>
      <p className="muted small" id={`${uid}-intent`}>
        {'combo' in checked
          ? `Intends: ${intentOf(checked.combo)}`
          : `Not valid yet: ${checked.error}`}
      </p>
      <p className="field-error" role={error ? 'alert' : undefined}>
        {error ?? '\u00a0'}
      </p>
      <div className="form-actions">
        <button type="submit" className="btn btn-primary">
          Save combo
        </button>
        <button type="button" className="btn" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
