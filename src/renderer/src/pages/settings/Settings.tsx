import { type FormEvent, useCallback, useEffect, useMemo, useState } from 'react';
import type { SettingView } from '../../../../shared/contract';
import { Badge, Card, Empty } from '../../components/ui';
import { useDashboard } from '../../state/store';
import { GatewayAddress } from './GatewayAddress';
import { SettingRow } from './SettingRow';
import { SettingsHeader } from './SettingsHeader';
import { display, group, parseInput } from './setting-values';
import { WebSearch } from './WebSearch';

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
      <WebSearch />
      <form onSubmit={submit} aria-label="Settings" className="settings">
        <SettingsHeader
          dirty={dirty}
          saving={saving}
          discard={() => {
            setDraft({});
            setErrors(null);
          }}
        />
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
                .map((s) => (
                  <SettingRow
                    key={s.key}
                    setting={s}
                    draft={draft}
                    fieldError={errors?.field === s.key ? errors.text : null}
                    saving={saving}
                    edit={(value) => setDraft((d) => ({ ...d, [s.key]: value }))}
                    reset={() => void save({ [s.key]: null })}
                  />
                ))}
            </div>
          </Card>
        ))}
      </form>
    </>
  );
}
