/**
 * The safe answer to "delete this?": it has the focus as soon as the question is asked, so Enter keeps; `onKeep`
 * closes the question (and gives the focus back to what asked it).
 */
export function KeepButton({ onKeep }: { onKeep: () => void }): React.JSX.Element {
  return (
    <button type="button" className="link" autoFocus onClick={onKeep}>
      Keep
    </button>
  );
}
