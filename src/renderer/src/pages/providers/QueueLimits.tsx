import { CountField, type DraftProps } from './CountField';

/** The connection's own queue limits, folded away; open when it already overrides some. */
export function QueueLimits({ open, ...fields }: DraftProps & { open: boolean }) {
  return (
    <details className="form-advanced" open={open}>
      <summary>Advanced: queue limits for this connection</summary>
      <div className="form-grid">
        <CountField label="Max wait (ms)" field="maxWaitMs" placeholder="setting" {...fields} />
        <CountField
          label="Execution max wait (ms)"
          field="executionMaxWaitMs"
          placeholder="setting"
          {...fields}
        />
        <CountField
          label="Max queue depth"
          field="maxQueueDepth"
          placeholder="setting"
          {...fields}
        />
      </div>
    </details>
  );
}
