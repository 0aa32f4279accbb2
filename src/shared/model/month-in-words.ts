const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * "October 2026" for the month a date (YYYY-MM-DD) or month (YYYY-MM) falls in: in English, as the files and the
 * command line say it (the screens name months in the user's locale: month-label.ts).
 */
export function monthInWords(date: string): string {
  const [year, month] = date.split('-');
  return `${MONTH_NAMES[Number(month) - 1] ?? month} ${year}`;
}
