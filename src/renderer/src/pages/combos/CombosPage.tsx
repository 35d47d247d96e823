import { useCallback, useEffect, useRef, useState } from 'react';
import type { ComboConfig, RequestLogEntry } from '../../../../shared/contract';
import { Card, Empty } from '../../components/ui';
import { useDashboard } from '../../state/store';
import { ComboCard } from './ComboCard';
import { ComboForm } from './ComboForm';
import { activityOf, EMPTY_DRAFT, mergeRows } from './combo-model';

/** Enough rows to hold the latest 100 of a few busy combos. */
const LOG_ROWS = 1000;

/** Combos: each with its strategy, what it intends and what it did; add and edit them. */
export function CombosPage() {
  const bridge = useDashboard((s) => s.bridge);
  const live = useDashboard((s) => s.recent);
  const configVersion = useDashboard((s) => s.configVersion);
  const [combos, setCombos] = useState<ComboConfig[] | null>(null);
  const [rows, setRows] = useState<RequestLogEntry[]>([]);
  const [adding, setAdding] = useState(false);
  const reload = useCallback(() => {
    if (!bridge) return;
    void bridge.listCombos().then((r) => r.ok && setCombos(r.data));
    void bridge.getLogs(LOG_ROWS).then((r) => r.ok && setRows(r.data));
  }, [bridge]);
  useEffect(reload, [reload]);
  const loadedVersion = useRef(configVersion);
  useEffect(() => {
    if (configVersion === loadedVersion.current) return;
    loadedVersion.current = configVersion;
    reload();
  }, [configVersion, reload]);
  const all = mergeRows(rows, live);
  return (
    <>
      <div className="section-head">
        <h2>Combos</h2>
        {!adding && bridge && (
          <button type="button" className="btn btn-primary" onClick={() => setAdding(true)}>
            Add combo
          </button>
        )}
      </div>
      {adding && (
        <Card title="New combo">
          <ComboForm
            initial={EMPTY_DRAFT}
            onDone={() => {
              setAdding(false);
              reload();
            }}
          />
        </Card>
      )}
      {combos === null ? (
        <Empty>Loading…</Empty>
      ) : combos.length === 0 ? (
        <Empty>No combos: a combo is a model name routed across targets by a strategy.</Empty>
      ) : (
        combos.map((c) => (
          <ComboCard key={c.name} combo={c} activity={activityOf(all, c.name)} reload={reload} />
        ))
      )}
    </>
  );
}
