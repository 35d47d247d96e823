import { useState } from 'react';
import type { AgentConnection, AgentId, AgentUndo, BridgeResult } from '../../../shared/contract';
import { useDashboard } from '../state/store';

const AGENTS: readonly { id: AgentId; label: string }[] = [
  { id: 'claude-code', label: 'Claude Code' },
  { id: 'codex', label: 'Codex CLI' },
  { id: 'opencode', label: 'opencode' },
  { id: 'qwen-code', label: 'Qwen Code' },
  { id: 'gemini-cli', label: 'Gemini CLI' },
];

type Outcome =
  | { kind: 'busy' }
  | { kind: 'connected'; r: AgentConnection }
  | { kind: 'undone'; r: AgentUndo }
  | { kind: 'failed'; error: string };

function Result({ outcome }: { outcome: Outcome }) {
  switch (outcome.kind) {
    case 'busy':
      return <span className="muted">Working…</span>;
    case 'failed':
      return <span className="text-bad">{outcome.error}</span>;
    case 'undone': {
      const { restored, removed } = outcome.r;
      if (restored.length + removed.length === 0) return <span>Nothing to undo.</span>;
      return (
        <ul className="agent-files">
          {restored.map((p) => (
            <li key={p}>
              Restored <code>{p}</code>
            </li>
          ))}
          {removed.map((p) => (
            <li key={p}>
              Removed <code>{p}</code> (connect had created it)
            </li>
          ))}
        </ul>
      );
    }
    case 'connected': {
      const { written, unchanged, backups, env, models } = outcome.r;
      const lines = Object.entries(env).map(([k, v]) => `export ${k}=${v}`);
      return (
        <div>
          <ul className="agent-files">
            {written.map((p) => (
              <li key={p}>
                Wrote <code>{p}</code>
              </li>
            ))}
            {unchanged.map((p) => (
              <li key={p}>
                <code>{p}</code> already pointed here
              </li>
            ))}
            {backups.map((p) => (
              <li key={p}>
                Backup: <code>{p}</code>
              </li>
            ))}
            <li>Model: {models[0] ?? 'the agent’s own default'}</li>
          </ul>
          {lines.length > 0 && (
            <>
              <p className="small muted">
                It reads these only from the environment; add them to your shell profile:
              </p>
              <pre className="agent-env">{lines.join('\n')}</pre>
            </>
          )}
        </div>
      );
    }
  }
}

/**
 * Connect / Undo per agent: the gateway writes the agent's own config file in the home folder
 * of the machine it runs on (as `breakwater connect` does), after a backup; Undo puts it back.
 */
export function AgentConnect() {
  const bridge = useDashboard((s) => s.bridge);
  const [key, setKey] = useState('');
  const [outcomes, setOutcomes] = useState<Partial<Record<AgentId, Outcome>>>({});
  if (!bridge) return null;
  const run = async <T,>(
    agent: AgentId,
    op: () => Promise<BridgeResult<T>>,
    done: (r: T) => Outcome,
  ) => {
    setOutcomes((o) => ({ ...o, [agent]: { kind: 'busy' } }));
    const r = await op();
    setOutcomes((o) => ({
      ...o,
      [agent]: r.ok ? done(r.data) : { kind: 'failed', error: r.error },
    }));
  };
  return (
    <section className="agent-connect" data-testid="agent-connect" aria-label="Connect an agent">
      <p className="small muted">
        Connect writes the agent’s own config file on the machine Breakwater runs on (after a
        backup), pointing it here with your combos as its models. Undo puts the file back.
      </p>
      <label className="small">
        Gateway key the agents present (optional){' '}
        <input
          type="password"
          value={key}
          autoComplete="off"
          onChange={(e) => setKey(e.target.value)}
          placeholder="none: any value"
        />
      </label>
      <ul className="agent-list">
        {AGENTS.map(({ id, label }) => {
          const outcome = outcomes[id];
          const busy = outcome?.kind === 'busy';
          return (
            <li key={id} data-testid={`agent-${id}`}>
              <span className="agent-name">{label}</span>
              <button
                type="button"
                className="btn btn-small btn-primary"
                disabled={busy}
                aria-label={`Connect ${label}`}
                onClick={() =>
                  run(
                    id,
                    () => bridge.connectAgent(id, key.trim() ? { key: key.trim() } : {}),
                    (r) => ({ kind: 'connected', r }),
                  )
                }
              >
                Connect
              </button>
              <button
                type="button"
                className="btn btn-small"
                disabled={busy}
                aria-label={`Undo ${label}`}
                onClick={() =>
                  run(
                    id,
                    () => bridge.undoAgent(id),
                    (r) => ({ kind: 'undone', r }),
                  )
                }
              >
                Undo
              </button>
              <div className="agent-result small" role="status" aria-live="polite">
                {outcome && <Result outcome={outcome} />}
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
