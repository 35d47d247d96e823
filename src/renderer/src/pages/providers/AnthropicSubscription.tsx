import type { DraftProps } from './CountField';

/** The options only an Anthropic subscription has. */
export function AnthropicSubscription({ draft, set, invalid }: DraftProps) {
  return (
    <fieldset className="form-grid form-group">
      <legend>Anthropic subscription</legend>
      <label className="check">
        <input
          type="checkbox"
          checked={draft.lowPriorityMode}
          onChange={(e) => set('lowPriorityMode', e.target.checked)}
        />
        Low-priority lane at the usage limit
      </label>
      <label className="check">
        <input
          type="checkbox"
          checked={draft.autoLimitReset}
          onChange={(e) => set('autoLimitReset', e.target.checked)}
        />
        Automatic limit reset
      </label>
      <label className="wide">
        Organization UUID{draft.autoLimitReset ? ' (required)' : ''}
        <input
          value={draft.organizationUUID}
          onChange={(e) => set('organizationUUID', e.target.value)}
          required={draft.autoLimitReset}
          spellCheck={false}
          autoComplete="off"
          placeholder="3f2b8c1e-0a4d-4e5f-9a7b-1c2d3e4f5a6b"
          aria-invalid={invalid === 'organizationUUID' ? true : undefined}
          data-field="organizationUUID"
        />
      </label>
    </fieldset>
  );
}
