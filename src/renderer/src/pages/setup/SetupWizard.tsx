// Shown on an empty store: pick or confirm providers (those found ready are checked), build a
// first combo, connect an agent. Each step can be skipped; everything it creates is an ordinary
// provider or combo, editable on the Providers page afterwards.

import { useEffect, useState } from 'react';
import { Card } from '../../components/ui';
import { useDashboard } from '../../state/store';
import { AgentStep } from './AgentStep';
import { type ComboDraft, ComboStep } from './ComboStep';
import { ImportPanel } from './ImportPanel';
import { ProviderStep } from './ProviderStep';
import { type Choice, choiceOf, comboOf, modelsOf, providerInput } from './setup-model';

type Step = 'providers' | 'combo' | 'agent' | 'done';

const TITLES: Record<Exclude<Step, 'done'>, string> = {
  providers: 'Set up Breakwater: 1. Providers',
  combo: 'Set up Breakwater: 2. A first combo',
  agent: 'Set up Breakwater: 3. Connect an agent',
};

export function SetupWizard() {
  const bridge = useDashboard((s) => s.bridge);
  const notify = useDashboard((s) => s.notify);
  const baseUrl = useDashboard((s) => s.snapshot?.gateway.baseUrl ?? '');
  const [step, setStep] = useState<Step | null>(null);
  const [choices, setChoices] = useState<Choice[]>([]);
  const [saved, setSaved] = useState<Choice[]>([]);
  const [combo, setCombo] = useState<ComboDraft>({
    name: 'coder',
    strategy: 'priority',
    models: {},
  });
  const [busy, setBusy] = useState(false);
  const [live, setLive] = useState<Record<string, string[]>>({});

  useEffect(() => {
    if (!bridge) return;
    let live = true;
    void (async () => {
      const existing = await bridge.listProviders();
      if (!existing.ok || existing.data.length > 0) return;
      const [presets, detected] = await Promise.all([
        bridge.getPresets(),
        bridge.detectProviders(),
      ]);
      if (!live || !presets.ok) return;
      const found = detected.ok ? detected.data : [];
      setChoices(
        presets.data.presets.map((p) => choiceOf(p, found.find((d) => d.preset === p.id) ?? null)),
      );
      setStep('providers');
    })();
    return () => {
      live = false;
    };
  }, [bridge]);

  if (!bridge || step === null || step === 'done') return null;

  async function saveProviders(): Promise<void> {
    if (!bridge) return;
    setBusy(true);
    const done: Choice[] = [];
    for (const c of choices.filter((x) => x.selected)) {
      const r = await bridge.saveProvider(providerInput(c));
      if (r.ok) done.push(c);
      else notify('bad', `${c.preset.name}: ${r.error}`);
    }
    // A provider that lists its models (the connection test's call) offers that list instead.
    const lists = await Promise.all(
      done.map(async (c): Promise<[string, string[]] | null> => {
        if (c.detected?.source === 'local') return null;
        const r = await bridge.testConnection(`${c.preset.id}-1`);
        return r.ok && r.data.models?.length ? [c.preset.id, r.data.models] : null;
      }),
    );
    setLive(Object.fromEntries(lists.filter((l): l is [string, string[]] => l !== null)));
    setBusy(false);
    if (done.length === 0) return;
    setSaved(done);
    const models = Object.fromEntries(done.map((c) => [c.preset.id, modelsOf(c)[0] ?? '']));
    setCombo((d) => ({ ...d, models }));
    setStep('combo');
  }

  async function saveCombo(): Promise<void> {
    if (!bridge) return;
    const targets = saved.flatMap((c) => {
      const m = combo.models[c.preset.id];
      return m ? [`${c.preset.id}/${m}`] : [];
    });
    setBusy(true);
    // A model picked from a live list that the preset did not name joins the provider's models.
    for (const c of saved) {
      const m = combo.models[c.preset.id];
      if (!m || modelsOf(c).includes(m)) continue;
      const { connections: _kept, ...provider } = providerInput(c);
      await bridge.saveProvider({ ...provider, models: [...modelsOf(c), m] });
    }
    const r = await bridge.saveCombo(comboOf(combo.name, combo.strategy, targets));
    setBusy(false);
    if (!r.ok) return notify('bad', `combo: ${r.error}`);
    notify('ok', `Combo ${r.data.name} created`);
    setStep('agent');
  }

  const next =
    step === 'providers'
      ? { label: 'Add providers', run: saveProviders, disabled: !choices.some((c) => c.selected) }
      : step === 'combo'
        ? {
            label: 'Create combo',
            run: saveCombo,
            disabled: !Object.values(combo.models).some(Boolean),
          }
        : { label: 'Done', run: async () => setStep('done'), disabled: false };
  // Skipping providers ends the wizard (a combo needs one); the later steps skip to the next.
  const skip = () => setStep(step === 'combo' ? 'agent' : 'done');

  return (
    <Card title={TITLES[step]} testId="setup-wizard">
      {step === 'providers' && <ProviderStep choices={choices} onChange={setChoices} />}
      {step === 'providers' && (
        <ImportPanel
          onImported={(report) => {
            notify(
              'ok',
              `Imported ${report.providers.length} provider(s), ${report.combos.length} combo(s)`,
            );
            setCombo((d) => ({ ...d, name: report.combos[0] ?? d.name }));
            setStep('agent');
          }}
        />
      )}
      {step === 'combo' && (
        <ComboStep choices={saved} live={live} draft={combo} onChange={setCombo} />
      )}
      {step === 'agent' && <AgentStep baseUrl={baseUrl} combo={combo.name} />}
      <div className="form-actions">
        <button type="button" className="btn" onClick={skip} disabled={busy}>
          Skip
        </button>{' '}
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => void next.run()}
          disabled={busy || next.disabled}
        >
          {next.label}
        </button>
      </div>
    </Card>
  );
}
