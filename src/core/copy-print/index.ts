/** Copying rows to the clipboard as text a spreadsheet pastes, and printing the view to PDF. */
export { createCopyPrint } from './handlers';
