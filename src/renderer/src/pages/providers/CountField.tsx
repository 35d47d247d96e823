import type { ConnectionDraft, DraftField } from '../../components/provider-fields';

/** What every part of the connection form gets: the draft, how to change it, the bad field. */
export interface DraftProps {
  draft: ConnectionDraft;
  set(field: DraftField, value: string | boolean): void;
  invalid: DraftField | null;
}

/** A labelled number field of the connection form; empty means "not set". */
export function CountField({
  label,
  field,
  draft,
  set,
  invalid,
  placeholder,
}: DraftProps & {
  label: string;
  field: DraftField;
  placeholder: string;
}) {
  return (
    <label>
      {label}
      <input
        value={draft[field] as string}
        onChange={(e) => set(field, e.target.value)}
        inputMode="numeric"
        placeholder={placeholder}
        aria-invalid={invalid === field ? true : undefined}
        data-field={field}
      />
    </label>
  );
}
