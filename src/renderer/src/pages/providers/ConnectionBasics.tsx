import { CountField, type DraftProps } from './CountField';

/** The connection's id, where its secret comes from, and its limits. */
export function ConnectionBasics({
  providerId,
  editing,
  ...fields
}: DraftProps & {
  providerId: string;
  /** Editing an existing connection: its id is fixed and its secret is kept unless retyped. */
  editing: boolean;
}) {
  const { draft, set } = fields;
  return (
    <div className="form-grid">
      <label>
        Connection id
        <input
          value={draft.id}
          onChange={(e) => set('id', e.target.value)}
          required
          readOnly={editing}
          placeholder={`${providerId}-1`}
        />
      </label>
      <label>
        Secret from
        <select value={draft.secretKind} onChange={(e) => set('secretKind', e.target.value)}>
          <option value="env">Environment variable</option>
          <option value="key">Stored key</option>
        </select>
      </label>
      <label className="wide">
        {draft.secretKind === 'env' ? 'Variable name' : 'API key (stored, never shown again)'}
        <input
          value={draft.secret}
          onChange={(e) => set('secret', e.target.value)}
          type={draft.secretKind === 'key' ? 'password' : 'text'}
          autoComplete="off"
          placeholder={
            draft.secretKind === 'env'
              ? 'OPENAI_API_KEY'
              : editing
                ? 'leave empty to keep the current secret'
                : 'leave empty to keep the stored one'
          }
        />
      </label>
      <CountField
        label="Max concurrent"
        field="maxConcurrent"
        placeholder="unlimited"
        {...fields}
      />
      <CountField
        label="Queue concurrency"
        field="concurrency"
        placeholder="unlimited"
        {...fields}
      />
      <CountField
        label="Requests per minute"
        field="requestsPerMinute"
        placeholder="learned from headers"
        {...fields}
      />
      <label className="check">
        <input
          type="checkbox"
          checked={draft.disableCooling}
          onChange={(e) => set('disableCooling', e.target.checked)}
        />
        Never cool down (lock the model instead)
      </label>
    </div>
  );
}
