import { describe, expect, it } from 'vitest';
import { teamLedgerAddress } from '@core';
import { statusLines } from './team-commands';

describe('team status', () => {
  const address = teamLedgerAddress('postgresql://anna@127.0.0.1:5432/ledger');
  const status = (schemaVersion: number) => statusLines({ user: 'anna', roles: ['closebook_preparer'], server: '16.4', schemaVersion }, address);

  it("names the files that bring an older schema up to this Closebook's, and nothing when it is current", () => {
    expect(status(4).split('\n')[2]).toBe("Closebook's schema: version 4.");
    expect(status(3).split('\n')[2]).toBe(
      "Closebook's schema: version 3, older than this Closebook's 4: until IT runs closebook-team-ledger-period-end.sql (resources/team-ledger, as the database's owner), the rules added since are the workstations' alone.",
    );
    expect(status(1)).toContain(
      'until IT runs closebook-team-ledger-invoices.sql, then closebook-team-ledger-audit.sql, then closebook-team-ledger-period-end.sql (',
    );
  });
});
