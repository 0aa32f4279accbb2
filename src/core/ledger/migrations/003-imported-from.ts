/** The file an imported report came from (its name only), so the list can tell a copy from the original. */
export const IMPORTED_FROM: string[] = [`ALTER TABLE reports ADD COLUMN imported_from VARCHAR`];
