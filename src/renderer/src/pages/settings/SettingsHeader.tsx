/** The sticky heading: how many changes are unsaved, and the buttons that drop or save them. */
export function SettingsHeader({
  dirty,
  saving,
  discard,
}: {
  dirty: number;
  saving: boolean;
  discard(): void;
}) {
  return (
    <div className="section-head sticky">
      <h2>Settings</h2>
      <div className="row">
        <span className="muted small" aria-live="polite">
          {dirty === 0 ? 'No unsaved changes' : `${dirty} unsaved change${dirty === 1 ? '' : 's'}`}
        </span>
        <button type="button" className="btn" disabled={dirty === 0 || saving} onClick={discard}>
          Discard
        </button>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={dirty === 0 || saving}
          data-testid="save-settings"
        >
          Save changes
        </button>
      </div>
    </div>
  );
}
