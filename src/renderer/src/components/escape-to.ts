/**
 * A key handler for a form opened in place (a note, a reason, a name, an entry's editor): Escape cancels it, as its
 * Cancel does. Nothing when it cannot be cancelled now (`cancel` undefined, e.g. while it saves).
 */
export const escapeTo =
  (cancel: (() => void) | undefined) =>
  (event: React.KeyboardEvent): void => {
    if (event.key !== 'Escape' || !cancel) return;
    event.preventDefault();
    cancel();
  };
