/** Closing the month: compare with the month before, billing checks, reviews and sign-off, trends and rates. */
export { type CloseApi, createClose, type CloseModule } from './handlers';
export { monthCloseSheets } from './close-workbook';
