import type { BridgeResult } from '../../../../shared/contract';
import { ActionButton } from '../../components/ui';

export function FieldError({ text, id }: { text: string | null; id?: string }) {
  return (
    <p className="field-error" id={id} role={text ? 'alert' : undefined}>
      {text ?? '\u00a0'}
    </p>
  );
}

/** A form's error line and its buttons: submit (primary unless `plain`), and Cancel if wanted. */
export function FormFooter({
  error,
  submit,
  plain = false,
  onCancel,
}: {
  error: string | null;
  submit: string;
  plain?: boolean;
  onCancel?: () => void;
}) {
  return (
    <>
      <FieldError text={error} />
      <div className="form-actions">
        <button type="submit" className={plain ? 'btn' : 'btn btn-primary'}>
          {submit}
        </button>
        {onCancel && (
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </>
  );
}

/** Deletes something after confirmation, then reloads the page's lists. */
export function DeleteButton({
  remove,
  reload,
  done,
  confirm,
}: {
  remove: () => Promise<BridgeResult<unknown>>;
  reload(): void;
  done: string;
  confirm: string;
}) {
  return (
    <ActionButton
      run={async () => {
        const r = await remove();
        reload();
        return r;
      }}
      done={done}
      tone="danger"
      confirm={confirm}
    >
      Delete
    </ActionButton>
  );
}
