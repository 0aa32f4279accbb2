import { useState } from 'react';
import { useMediaQuery } from '@renderer/hooks/use-media-query';

/**
 * A screen's side panel (a list, import and history) that steps aside while the main content is open in a window
 * narrower than `roomQuery`, so the content has the whole row; the user's own choice to show or hide it wins.
 */
export function useSidePanel(roomQuery: string, contentOpen: boolean): { shown: boolean; toggle: () => void } {
  const room = useMediaQuery(roomQuery);
  const [choice, setChoice] = useState<boolean | null>(null);
  const shown = !contentOpen || (choice ?? room);
  return { shown, toggle: () => setChoice(!shown) };
}

/** The link that shows or hides a side panel (`controls` is the panel's id). */
export function SidePanelToggle({
  panel,
  controls,
  what,
}: {
  panel: { shown: boolean; toggle: () => void };
  controls: string;
  what: string;
}): React.JSX.Element {
  return (
    <button type="button" className="link" aria-controls={controls} aria-expanded={panel.shown} onClick={panel.toggle}>
      {panel.shown ? `Hide ${what}` : `Show ${what}`}
    </button>
  );
}
