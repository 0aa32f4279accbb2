import { useEffect } from 'react';

/** The platform's command key: ⌘ on macOS, Ctrl elsewhere. */
export const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
export const COMMAND_KEY = isMac ? '⌘' : 'Ctrl+';

/** The attributes of a text filter that Ctrl/⌘+F focuses: the report's, or the open Close tab's search. */
export const FILTER_SHORTCUT = { 'data-shortcut': 'filter', title: `Filter by text (${COMMAND_KEY}F)` } as const;

/** Which control inside the open report each shortcut uses (`data-shortcut` on it). */
const SHORTCUTS: Record<string, { target: string; act: 'focus' | 'click' }> = {
  f: { target: 'filter', act: 'focus' },
  e: { target: 'export', act: 'click' },
  p: { target: 'print', act: 'click' },
};

/**
 * While a report is open: Ctrl/⌘+F focuses its text filter (on the Close screen, the open tab's search), Ctrl/⌘+E exports the workbook, Ctrl/⌘+P prints (or saves
 * as PDF) — instead of the browser's find and print of a page that is mostly a virtual list. The controls are found
 * by their `data-shortcut` inside `root`, so each shortcut does exactly what its button does (and nothing while it
 * is disabled).
 */
export function useReportShortcuts(root: React.RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      const command = isMac ? event.metaKey && !event.ctrlKey : event.ctrlKey && !event.metaKey;
      const shortcut = command && !event.altKey && !event.shiftKey ? SHORTCUTS[event.key.toLowerCase()] : undefined;
      const control = shortcut ? root.current?.querySelector<HTMLInputElement | HTMLButtonElement>(`[data-shortcut="${shortcut.target}"]`) : null;
      if (!shortcut || !control) return;
      event.preventDefault();
      if (shortcut.act === 'focus') {
        control.focus();
        if (control instanceof HTMLInputElement) control.select();
      } else if (!control.disabled) control.click();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [root]);
}
