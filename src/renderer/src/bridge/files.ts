import type { FileResult } from '@shared/contract';

/** Turns a file the main process produced into what the user sees: a download in the browser, or where it was saved. */
export function receiveFile(result: FileResult): string | null {
  if (result.kind === 'cancelled') return null;
  if (result.kind === 'saved') return `Saved to ${result.path}`;
  // The bridge serves the file itself: following its URL downloads it without the bytes passing through script.
  const anchor = document.createElement('a');
  anchor.href = result.url;
  anchor.download = result.fileName;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  return `Downloaded ${result.fileName}`;
}
