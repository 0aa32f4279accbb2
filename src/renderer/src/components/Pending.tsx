import { useState } from 'react';
import { formatDuration } from '@shared/report-progress';
import { useNow } from '@renderer/hooks/use-now';

/** A wait in words and figures: what is being done and, from the first second on, for how long. */
export function Pending({ what, className = 'empty' }: { what: string; className?: string }): React.JSX.Element {
  const [startedAt] = useState(() => Date.now());
  const elapsed = useNow() - startedAt;
  return (
    <p className={className} role="status" data-testid="pending">
      {what}
      {elapsed >= 1000 ? ` (${formatDuration(elapsed)})` : ''}
    </p>
  );
}
