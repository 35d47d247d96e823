import { useCallback, useEffect, useRef, useState } from 'react';
import type { ComboConfig, ProviderView } from '../../../../shared/contract';
import { Card, Empty } from '../../components/ui';
import { useDashboard } from '../../state/store';
import { Combos } from './Combos';
import { ProviderCard } from './ProviderCard';
import { ProviderForm } from './ProviderForm';
import { EMPTY_PROVIDER } from './provider-model';

export function Providers() {
  const bridge = useDashboard((s) => s.bridge);
  const [providers, setProviders] = useState<ProviderView[] | null>(null);
  const [combos, setCombos] = useState<ComboConfig[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const reload = useCallback(() => {
    if (!bridge) return;
    void bridge.listProviders().then((r) => {
      if (r.ok) {
        setProviders(r.data);
        setError(null);
      } else setError(r.error);
    });
    void bridge.listCombos().then((r) => r.ok && setCombos(r.data));
  }, [bridge]);
  useEffect(reload, [reload]);
  // Config edits elsewhere (another tab, the API) show up here too. The first load above
  // already read the current version, so only a change after it reloads.
  const configVersion = useDashboard((s) => s.configVersion);
  const loadedVersion = useRef(configVersion);
  useEffect(() => {
    if (configVersion === loadedVersion.current) return;
    loadedVersion.current = configVersion;
    reload();
  }, [configVersion, reload]);
  return (
    <>
      <div className="section-head">
        <h2>Providers and connections</h2>
        {!adding && (
          <button type="button" className="btn btn-primary" onClick={() => setAdding(true)}>
            Add provider
          </button>
        )}
      </div>
      {error && <p className="text-bad">Could not load providers: {error}</p>}
      {adding && (
        <Card title="New provider">
          <ProviderForm
            initial={EMPTY_PROVIDER}
            onDone={() => {
              setAdding(false);
              reload();
            }}
          />
        </Card>
      )}
      {providers === null ? (
        <Empty>Loading…</Empty>
      ) : providers.length === 0 ? (
        <Empty>No providers yet. Add one, or start with --config FILE.</Empty>
      ) : (
        providers.map((p) => <ProviderCard key={p.id} p={p} reload={reload} />)
      )}
      <Combos combos={combos} reload={reload} />
    </>
  );
}
