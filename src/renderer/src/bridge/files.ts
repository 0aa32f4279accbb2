import type { FileResult } from '../../../shared/contract';

/** Turns a file the main process produced into what the user sees: a download in the browser, or where it was saved. */
export function receiveFile(result: FileResult): string | null {
  if (result.kind === 'cancelled') return null;
  if (result.kind === 'saved') return `Saved to ${result.path}`;
  const bytes = Uint8Array.from(atob(result.base64), (char) => char.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: result.mimeType }));
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = result.fileName;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return `Downloaded ${result.fileName}`;
}
