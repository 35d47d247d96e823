import { type FormEvent, useCallback, useEffect, useMemo, useState } from 'react';
import type { SettingView } from '../../../../shared/contract';
import { Badge, Card, Empty } from '../../components/ui';
import { useDashboard } from '../../state/store';
import { GatewayAddress } from './GatewayAddress';

function display(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Turns what the user typed back into the setting's type; the API validates the rest. */
function parseInput(s: SettingView, raw: string): unknown {
  if (typeof s.defaultValue === 'number') {
    const t = raw.trim();
    if (t === '') return raw;
    const n = Number(t);
    return Number.isFinite(n) ? n : raw;
  }
  if (typeof s.defaultValue === 'object' && s.defaultValue !== null) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

function group(key: string): string {
  const dot = key.indexOf('.');
  return dot === -1 ? 'general' : key.slice(0, dot);
}

function range(s: SettingView): string | null {
  if (s.min === null && s.max === null) return null;
  const u = s.unit ? ` ${s.unit}` : '';
  return `${s.min ?? '…'}–${s.max ?? '…'}${u}`;
}

export function Settings() {
  const bridge = useDashboard((s) => s.bridge);
  const notify = useDashboard((s) => s.notify);
  const [settings, setSettings] = useState<SettingView[] | null>(null);
  const [draft, setDraft] = useState<Record<string, string | boolean>>({});
  const [errors, setErrors] = useState<{ field: string | null; text: string } | null>(null);
  const [saving, setSaving] = useState(false);

  const load = useCallback(() => {
    if (!bridge) return;
    void bridge.getSettings().then((r) => {
      if (r.ok) setSettings(r.data);
      else setErrors({ field: null, text: r.error });
    });
  }, [bridge]);
  useEffect(load, [load]);

  const changed = useMemo(() => {
    const out: Record<string, unknown> = {};
    for (const s of settings ?? []) {
      if (!(s.key in draft)) continue;
      const v = draft[s.key];
      const value = typeof v === 'boolean' ? v : parseInput(s, v ?? '');
      if (display(value) !== display(s.value)) out[s.key] = value;
    }
    return out;
  }, [draft, settings]);

  const save = async (values: Record<string, unknown>) => {
    if (!bridge) return;
    setSaving(true);
    const r = await bridge.updateSettings(values);
    setSaving(false);
    if (!r.ok) {
      // Nothing was saved: the API applies a change completely or not at all.
      setErrors({ field: r.field ?? null, text: r.error });
      return;
    }
    setErrors(null);
    setSettings(r.data);
    setDraft({});
    notify(
      'ok',
      `Saved ${Object.keys(values).length} setting${Object.keys(values).length === 1 ? '' : 's'}; it applies to the next request`,
    );
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(changed);
  };

  if (!settings)
    return <Empty>{errors ? `Could not load settings: ${errors.text}` : 'Loading…'}</Empty>;
  const groups = [...new Set(settings.map((s) => group(s.key)))];
  const dirty = Object.keys(changed).length;

  return (
    <>
      {/* Outside the settings form: forms do not nest, and it saves on its own. */}
      <GatewayAddress />
      <form onSubmit={submit} aria-label="Settings" className="settings">
        <div className="section-head sticky">
          <h2>Settings</h2>
          <div className="row">
            <span className="muted small" aria-live="polite">
              {dirty === 0
                ? 'No unsaved changes'
                : `${dirty} unsaved change${dirty === 1 ? '' : 's'}`}
            </span>
            <button
              type="button"
              className="btn"
              disabled={dirty === 0 || saving}
              onClick={() => {
                setDraft({});
                setErrors(null);
              }}
            >
              Discard
            </button>
            <button
              type="submit"
              className="btn btn-primary"
              disabled={dirty === 0 || saving}
              data-testid="save-settings"
            >
              Save changes
            </button>
          </div>
        </div>
        <p className="muted small">
          Where a value comes from: <Badge tone="idle">default</Badge> built in,{' '}
          <Badge tone="info">env</Badge> an environment variable changed the default,{' '}
          <Badge tone="ok">saved</Badge> set here or through the API. A saved value wins over the
          environment, and a per-connection override wins over both: to let an environment variable
          apply again, reset the saved value.
        </p>
        <p
          className={`form-error ${errors && !errors.field ? '' : 'hidden'}`}
          role="alert"
          data-testid="settings-error"
        >
          {errors && !errors.field ? errors.text : '\u00a0'}
        </p>
        {groups.map((g) => (
          <Card key={g} title={g}>
            <div className="settings-list">
              {settings
                .filter((s) => group(s.key) === g)
                .map((s) => {
                  const id = `setting-${s.key}`;
                  const fieldError = errors?.field === s.key ? errors.text : null;
                  const value =
                    s.key in draft
                      ? draft[s.key]
                      : typeof s.value === 'boolean'
                        ? s.value
                        : display(s.value);
                  const r = range(s);
                  return (
                    <div
                      key={s.key}
                      className={`setting ${fieldError ? 'setting-invalid' : ''}`}
                      data-testid={id}
                    >
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
                            onChange={(e) => setDraft((d) => ({ ...d, [s.key]: e.target.checked }))}
                          />
                        ) : (
                          <span className="with-unit">
                            <input
                              id={id}
                              value={String(value)}
                              inputMode={typeof s.defaultValue === 'number' ? 'numeric' : 'text'}
                              aria-invalid={fieldError ? true : undefined}
                              aria-describedby={`${id}-error`}
                              onChange={(e) => setDraft((d) => ({ ...d, [s.key]: e.target.value }))}
                            />
                            {s.unit && <span className="unit">{s.unit}</span>}
                          </span>
                        )}
                        <Badge
                          tone={s.source === 'saved' ? 'ok' : s.source === 'env' ? 'info' : 'idle'}
                        >
                          <span data-testid="setting-source">{s.source}</span>
                        </Badge>
                        {s.source === 'saved' && (
                          <button
                            type="button"
                            className="btn btn-small"
                            onClick={() => void save({ [s.key]: null })}
                            disabled={saving}
                          >
                            Reset
                          </button>
                        )}
                      </div>
                      <p
                        className="field-error"
                        id={`${id}-error`}
                        role={fieldError ? 'alert' : undefined}
                      >
                        {fieldError ?? ''}
                      </p>
                    </div>
                  );
                })}
            </div>
          </Card>
        ))}
      </form>
    </>
  );
}
