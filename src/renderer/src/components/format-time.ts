/**
 * Every date and time the renderer shows or sends is formatted here, so the same moment reads the same on every
 * screen.
 */

/** A stored timestamp (ISO 8601, e.g. `2026-10-31T09:15:00.000Z`) as `2026-10-31 09:15`. */
export function formatDateTime(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ');
}

/** A calendar day as the service takes it, YYYY-MM-DD (of a date built with Date.UTC). */
export function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** A span of time as `42 s` or `3 min 05 s`; negative spans read as `0 s`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}
