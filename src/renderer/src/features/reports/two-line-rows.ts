/**
 * The virtual tables whose rows hold two short lines (Invoicing, the month's changes): every row is this tall (their
 * CSS agrees), under a header this tall, with this many rows drawn beyond the view each way.
 */
export const TWO_LINE_ROW_HEIGHT = 36;
export const TABLE_HEADER_HEIGHT = 40;
export const OVERSCAN_ROWS = 8;
