/** A plain-words error next to the thing it concerns. */
export function ErrorNote({ message }: { message: string | null | undefined }): React.JSX.Element | null {
  if (!message) return null;
  return (
    <div className="error-note" role="alert">
      {message}
    </div>
  );
}
