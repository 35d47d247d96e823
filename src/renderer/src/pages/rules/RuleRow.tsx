import type { RuleDraft } from './rule-draft';

/** One rule of the list: its name, what it routes to, its conditions, and its place. */
export function RuleRow({
  index,
  count,
  draft,
  onChange,
  onMove,
  onRemove,
}: {
  index: number;
  count: number;
  draft: RuleDraft;
  onChange(next: RuleDraft): void;
  onMove(by: number): void;
  onRemove(): void;
}) {
  const label = draft.name || `rule ${index + 1}`;
  return (
    <li className="card form" data-testid="rule-row" aria-label={`Rule ${label}`}>
      <div className="form-grid">
        <label>
          Name
          <input
            value={draft.name}
            onChange={(e) => onChange({ ...draft, name: e.target.value })}
            placeholder="background"
          />
        </label>
        <label>
          Use (a combo or provider/model)
          <input
            value={draft.use}
            onChange={(e) => onChange({ ...draft, use: e.target.value })}
            placeholder="cheap"
          />
        </label>
        <label className="wide">
          When (JSON: model, thinking, minInputTokens, maxInputTokens, images, webSearch, tools,
          client, key)
          <textarea
            rows={2}
            value={draft.when}
            onChange={(e) => onChange({ ...draft, when: e.target.value })}
            placeholder='{"model": "claude-*haiku*"}'
          />
        </label>
      </div>
      <div className="row-actions">
        <button
          type="button"
          className="btn"
          disabled={index === 0}
          onClick={() => onMove(-1)}
          aria-label={`Move ${label} up`}
        >
          Up
        </button>
        <button
          type="button"
          className="btn"
          disabled={index === count - 1}
          onClick={() => onMove(1)}
          aria-label={`Move ${label} down`}
        >
          Down
        </button>
        <button type="button" className="btn" onClick={onRemove} aria-label={`Remove ${label}`}>
          Remove
        </button>
      </div>
    </li>
  );
}
