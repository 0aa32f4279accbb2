/** Closing a month: compare with the month before, billing checks, reviews and sign-off, trends and rates. */
export { type CloseApi, createClose, type CloseModule } from './handlers';
export { monthCloseSheets } from './close-workbook';
// For the team ledger, which keeps a month's close on PostgreSQL under the same rules (a CloseRecord of its own).
export { adjustmentsAwaitingApproval, type CloseRecord, type CloseRecordPort, type InvoiceStep } from './close-record';
export { type BillingException, type ConsumptionHistory, RULES } from './billing-checks';
export type { MonthLog } from './close-log';
export { tidyCalendar } from './calendar';
export { type Actor, evidenceText, type Prepared, reviewRequest, reviewsOf, signOffOf } from './month-review';
export { RULES_VERSION } from './month-close';
export { everyFetch, monthOf, type MonthRef } from './months';
export { monthFetchRows } from './queries/months';
export type { RateRow } from './queries/rates';
export { type ReviewRow, reviewRows } from './queries/reviews';
export { type SignOffRow, signOffRow } from './queries/sign-offs';
export type { CloseStamp } from './close-stamp';
