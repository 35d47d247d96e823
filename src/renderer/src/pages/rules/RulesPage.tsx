import { useCallback, useEffect, useRef, useState } from 'react';
import { Empty } from '../../components/ui';
import { useDashboard } from '../../state/store';
import { RuleRow } from './RuleRow';
import { RuleTry } from './RuleTry';
import { draftOf, EMPTY_RULE, moved, type RuleDraft, rulesOf } from './rule-draft';

/** Routing rules: tried in order before the model name; edit, reorder, save, and try one. */
export function RulesPage() {
  const bridge = useDashboard((s) => s.bridge);
  const notify = useDashboard((s) => s.notify);
  const configVersion = useDashboard((s) => s.configVersion);
  const [drafts, setLoaded] = useState<RuleDraft[] | null>(null);
  // Unsaved edits survive a config change elsewhere (or the echo of this page's own save).
  const dirty = useRef(false);
  const setDrafts: typeof setLoaded = (next) => {
    dirty.current = true;
    setLoaded(next);
  };
  const [error, setError] = useState<string | null>(null);
  // An edit made while the rules are being read wins over what the read brings back.
  const reload = useCallback(() => {
    void bridge
      ?.listRules()
      .then((r) => r.ok && !dirty.current && setLoaded(r.data.rules.map(draftOf)));
  }, [bridge]);
  useEffect(reload, [reload]);
  const loadedVersion = useRef(configVersion);
  useEffect(() => {
    if (configVersion === loadedVersion.current) return;
    loadedVersion.current = configVersion;
    if (!dirty.current) reload();
  }, [configVersion, reload]);
  const save = async () => {
    if (!bridge || !drafts) return;
    const checked = rulesOf(drafts);
    if ('error' in checked) return setError(checked.error);
    const r = await bridge.saveRules(checked.rules);
    if (!r.ok) return setError(r.field ? `${r.field}: ${r.error}` : r.error);
    dirty.current = false;
    setError(null);
    notify('ok', `${r.data.rules.length} rule(s) saved`);
  };
  const set = (i: number, next: RuleDraft) =>
    setDrafts((d) => d?.map((x, j) => (j === i ? next : x)) ?? null);
  return (
    <>
      <div className="section-head">
        <h2>Rules</h2>
        {drafts && (
          <button
            type="button"
            className="btn"
            onClick={() => setDrafts([...drafts, { ...EMPTY_RULE }])}
          >
            Add rule
          </button>
        )}
        {drafts && (
          <button type="button" className="btn btn-primary" onClick={() => void save()}>
            Save rules
          </button>
        )}
      </div>
      <p className="muted">
        The first rule whose conditions all hold sends the request to its combo or provider/model;
        with none, the model name is resolved as sent.
      </p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {drafts === null ? (
        <Empty>Loading…</Empty>
      ) : drafts.length === 0 ? (
        <Empty>No rules: every request goes where its model name says.</Empty>
      ) : (
        <ol className="rule-list" aria-label="Rules in order">
          {drafts.map((d, i) => (
            <RuleRow
              // biome-ignore lint/suspicious/noArrayIndexKey: a rule's place is its identity while it is edited
              key={i}
              index={i}
              count={drafts.length}
              draft={d}
              onChange={(next) => set(i, next)}
              onMove={(by) => setDrafts(moved(drafts, i, by))}
              onRemove={() => setDrafts(drafts.filter((_, j) => j !== i))}
            />
          ))}
        </ol>
      )}
      <RuleTry />
    </>
  );
}
