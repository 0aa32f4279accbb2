import { join } from 'node:path';
import { CloseCalendar, DEFAULT_CALENDAR } from '@shared/schemas/month-close';
import { readJsonFile, writeJsonAtomic } from '../storage/atomic-file';

/** Where a workstation without a team ledger keeps its close calendar. */
export const CALENDAR_FILE = 'close-calendar.json';

/** Where a close calendar is kept. */
export interface CalendarStore {
  get(): Promise<CloseCalendar>;
  set(calendar: CloseCalendar): Promise<CloseCalendar>;
}

/** Kept only for this process (tests, and a core made without a data folder). */
export function memoryCalendar(): CalendarStore {
  let kept = DEFAULT_CALENDAR;
  return {
    get: async () => kept,
    set: async (calendar) => (kept = tidyCalendar(calendar)),
  };
}

/** Holidays once each, in order. */
export const tidyCalendar = (calendar: CloseCalendar): CloseCalendar => ({ ...calendar, holidays: [...new Set(calendar.holidays)].sort() });

/** The close calendar of a workstation on its own, in the data folder (the team ledger keeps the team's). */
export class CalendarFile implements CalendarStore {
  private readonly path: string;

  constructor(dataDir: string) {
    this.path = join(dataDir, CALENDAR_FILE);
  }

  async get(): Promise<CloseCalendar> {
    return (await readJsonFile(this.path, CloseCalendar)) ?? DEFAULT_CALENDAR;
  }

  async set(calendar: CloseCalendar): Promise<CloseCalendar> {
    const kept = tidyCalendar(calendar);
    await writeJsonAtomic(this.path, kept);
    return kept;
  }
}
