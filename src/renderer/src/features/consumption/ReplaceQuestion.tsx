import { useEffect, useRef } from 'react';
import type { Batch } from './consumption-store';
import { counted } from '@shared/counted';

/**
 * "Replace the batch you are editing?": asked before a file, pasted rows, a new or copied batch takes the place of
 * rows typed or fixed here and not sent. Focus lands on keeping them, the answer that loses nothing.
 */
export function ReplaceQuestion({ by, batch, onReplace, onKeep }: { by: string; batch: Batch; onReplace: () => void; onKeep: () => void }): React.JSX.Element {
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => keep.current?.focus(), [by]);
  return (
    <div className="error-note repeat-warning" role="alertdialog" aria-label="Replace the batch you are editing?" aria-describedby="replace-question-text">
      <p id="replace-question-text">
        {by} replaces the batch you are editing ({batch.fileName}, {counted(batch.rows.length, 'row')}), whose changes have not been sent. Replaced, they are
        gone.
      </p>
      <div className="toolbar">
        <button type="button" className="danger" onClick={onReplace}>
          Replace it
        </button>
        <button type="button" className="primary" ref={keep} onClick={onKeep}>
          Keep my batch
        </button>
      </div>
    </div>
  );
}
