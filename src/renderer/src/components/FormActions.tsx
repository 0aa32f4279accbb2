/** Submit and Cancel at the foot of a form; the submit button says what is happening while it works. */
export function FormActions({
  busy,
  label,
  busyLabel,
  onCancel,
}: {
  busy: boolean;
  label: string;
  busyLabel: string;
  onCancel: () => void;
}): React.JSX.Element {
  return (
    <div className="form__actions">
      <button type="submit" className="primary" disabled={busy}>
        {busy ? busyLabel : label}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
