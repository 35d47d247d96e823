import type { SettingView } from '../../../../shared/contract';
import { Badge } from '../../components/ui';
import { display, range } from './setting-values';

/** One setting: what it does, its default and bounds, its input, where its value comes from. */
export function SettingRow({
  setting: s,
  draft,
  fieldError,
  saving,
  edit,
  reset,
}: {
  setting: SettingView;
  /** Every unsaved edit, by key. */
  draft: Record<string, string | boolean>;
  fieldError: string | null;
  saving: boolean;
  edit(value: string | boolean): void;
  reset(): void;
}) {
  const id = `setting-${s.key}`;
  const value =
    s.key in draft ? draft[s.key] : typeof s.value === 'boolean' ? s.value : display(s.value);
  const r = range(s);
  return (
    <div className={`setting ${fieldError ? 'setting-invalid' : ''}`} data-testid={id}>
      <div className="setting-text">
        <label htmlFor={id}>
          <code>{s.key}</code>
        </label>
        <p className="small">{s.description}</p>
        <p className="muted small">
          default {display(s.defaultValue)}
          {s.unit ? ` ${s.unit}` : ''}
          {r ? ` · allowed ${r}` : ''}
          {s.env ? (
            <>
              {' · env '}
              <code>{s.env}</code>
            </>
          ) : null}
        </p>
      </div>
      <div className="setting-input">
        {typeof s.defaultValue === 'boolean' ? (
          <input
            id={id}
            type="checkbox"
            checked={value === true}
            onChange={(e) => edit(e.target.checked)}
          />
        ) : (
          <span className="with-unit">
            <input
              id={id}
              value={String(value)}
              inputMode={typeof s.defaultValue === 'number' ? 'numeric' : 'text'}
              aria-invalid={fieldError ? true : undefined}
              aria-describedby={`${id}-error`}
              onChange={(e) => edit(e.target.value)}
            />
            {s.unit && <span className="unit">{s.unit}</span>}
          </span>
        )}
        <Badge tone={s.source === 'saved' ? 'ok' : s.source === 'env' ? 'info' : 'idle'}>
          <span data-testid="setting-source">{s.source}</span>
        </Badge>
        {s.source === 'saved' && (
          <button type="button" className="btn btn-small" onClick={reset} disabled={saving}>
            Reset
          </button>
        )}
      </div>
      <p className="field-error" id={`${id}-error`} role={fieldError ? 'alert' : undefined}>
        {fieldError ?? ''}
      </p>
    </div>
  );
}
