import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { readFile } from 'node:fs/promises';
import type { NameOrder } from '@shared/model/name-order';
import { silentLogger } from '@core/ports/ports';
import { ledgerAtSchema, ledgerWithMonth } from '@testing/ledger-month';
import { temporaryDir } from '@testing/test-support';
import { parseCsv } from '@testing/csv';
import { byName } from '@testing/name-order';
import { Ledger } from '@core/ledger/ledger';
import { ReportLibrary } from './report-library';
import { invoicing } from './report-invoicing';
import { writeCsv } from './report-export';
import { writeReportWorkbook } from './report-workbook';
import type { WindowRequest } from './report-viewer';
import { viewerOn, windowRequest } from '@testing/viewer';

const REPORT = '00000000-0000-4000-8000-000000000077';
const cleanups = cleanupsAfterEach();

/** Names whose order differs by language: Å, Ä, Ö, Ø, Æ after Z in Swedish, Norwegian and Danish; numbers by value. */
const ORGANIZATIONS = ['Zeta AB', 'Åkerberg AB', 'Alpha AB', 'Ørsted A/S', 'Öberg AB', 'Ärla AB', 'Plan 10 AB', 'Plan 9 AB', 'Æble ApS', 'Aalborg ApS'];
const SERVICES = ['Ångström Cloud', 'Azure Plan', 'Östra Backup', 'Zoom Rooms'];
const SUBSCRIPTIONS = ['Äpple 365', 'Apa 365', 'Zebra 365', 'Åsna 365', 'Örn 365', 'Plan 10 seats', 'Plan 9 seats'];

/** What ICU in Node (not DuckDB's) says the order is: the test's own oracle. */
function sortedAs(order: NameOrder, names: Iterable<string>): string[] {
  return [...new Set(names)].sort(byName(order));
}

/** The subscription names of a CSV's rows, per service of an organization, as the rows list them. */
function subscriptionsByService(rows: string[][], column: (name: string) => number): string[][] {
  const services = new Map<string, string[]>();
  for (const row of rows) {
    const service = `${row[column('Org ID')]}|${row[column('Service ID')]}`;
    services.set(service, [...(services.get(service) ?? []), row[column('Subscription')]!]);
  }
  return [...services.values()];
}

/** Consecutive repeats dropped: a name per organization, where the tree has a row per currency pair. */
function inTurn(names: string[]): string[] {
  return names.filter((name, at) => name !== names[at - 1]);
}

async function month() {
  const saved = await ledgerWithMonth({
    reportId: REPORT,
    seed: 5,
    organizations: ORGANIZATIONS.length,
    linesPerOrganization: 8,
    change: (entries) => {
      const names = new Map<string, string>();
      for (const entry of entries)
        for (const organization of entry.organizations) {
          if (!names.has(organization.orgId)) names.set(organization.orgId, ORGANIZATIONS[names.size % ORGANIZATIONS.length]!);
          organization.name = names.get(organization.orgId)!;
          organization.services.forEach((service, s) => {
            service.serviceName = SERVICES[s % SERVICES.length]!;
            service.items.forEach((item, i) => (item.itemName = SUBSCRIPTIONS[i % SUBSCRIPTIONS.length]!));
          });
        }
    },
  });
  cleanups.push(saved.close);
  return saved;
}

const request = (change: Partial<WindowRequest> = {}) => windowRequest(REPORT, { count: 5000, ...change });

describe('one order for names, the profile’s', () => {
  it('sorts the tree by the collation of the profile’s language, both ways round, and again when the profile changes it', async () => {
    const { ledger, entries } = await month();
    const served = entries.flatMap((entry) => entry.organizations);
    for (const order of ['sv', 'en', 'no', 'sv'] as const) {
      const { viewer } = viewerOn(ledger, order);
      const tops = (await viewer.window(request())).rows.map((row) => row.label);
      expect(inTurn(tops), order).toEqual(
        sortedAs(
          order,
          served.map((organization) => organization.name),
        ),
      );
      const descending = (await viewer.window(request({ sort: { key: 'label', direction: 'desc' } }))).rows.map((row) => row.label);
      expect(inTurn(descending), order).toEqual(
        sortedAs(
          order,
          served.map((organization) => organization.name),
        ).reverse(),
      );
      const byService = (await viewer.window(request({ hierarchy: 'service' }))).rows.map((row) => row.label);
      expect(inTurn(byService), order).toEqual(sortedAs(order, SERVICES).filter((name) => byService.includes(name)));
    }
    // In Swedish, Å Ä Ö come after Z; in English, among the A's and O's; Plan 9 before Plan 10 in both.
    const swedish = sortedAs('sv', ORGANIZATIONS);
    expect(swedish.indexOf('Åkerberg AB')).toBeGreaterThan(swedish.indexOf('Zeta AB'));
    expect(sortedAs('en', ORGANIZATIONS).indexOf('Åkerberg AB')).toBeLessThan(sortedAs('en', ORGANIZATIONS).indexOf('Zeta AB'));
  });

  it('sorts the subscriptions under an open service, the filter’s service choices, and says which order it used', async () => {
    const { ledger } = await month();
    const { viewer, orders } = viewerOn(ledger, 'sv');
    const everything = await viewer.window(request({ expansion: { all: 'organizations', toggled: [] } }));
    const services = everything.rows.filter((row) => row.level === 'service');
    const open = await viewer.window(request({ expansion: { all: 'organizations', toggled: services.map((row) => row.key) } }));
    const byService = new Map<string, string[]>();
    let parent = '';
    for (const row of open.rows) {
      if (row.level === 'service') parent = row.key;
      if (row.level === 'subscription') byService.set(parent, [...(byService.get(parent) ?? []), row.label]);
    }
    const several = [...byService.values()].filter((names) => new Set(names).size > 2);
    expect(several.length).toBeGreaterThan(0);
    for (const names of byService.values()) expect(inTurn(names)).toEqual(sortedAs('sv', names));
    expect((await viewer.view(REPORT)).services).toEqual(sortedAs('sv', SERVICES).filter((name) => services.some((row) => row.label === name)));
    expect(await orders.of(REPORT)).toBe('sv');
  });

  it('gives the Invoicing view each organization’s place in that order', async () => {
    const { ledger } = await month();
    for (const order of ['sv', 'da'] as const) {
      await viewerOn(ledger, order).orders.of(REPORT);
      const { rows } = await invoicing(ledger, REPORT);
      const byRank = [...rows].sort((a, b) => a.nameRank - b.nameRank || (a.currency < b.currency ? -1 : 1));
      expect(
        byRank.map((row) => row.key),
        'the rows come in that order',
      ).toEqual(rows.map((row) => row.key));
      expect(inTurn(rows.map((row) => row.organization)), order).toEqual(
        sortedAs(
          order,
          rows.map((row) => row.organization),
        ),
      );
    }
  });

  it('writes the CSV and the workbook in the same order, and names it in About', async () => {
    const { ledger, dir } = await month();
    await viewerOn(ledger, 'sv').orders.of(REPORT);
    const csv = join(dir, 'lines.csv');
    await writeCsv(ledger, REPORT, csv);
    const [header, ...rows] = parseCsv((await readFile(csv, 'utf8')).slice(1));
    const column = (name: string) => header!.indexOf(name);
    const organizations = rows.map((row) => row[column('Organization')]!);
    expect(inTurn(organizations)).toEqual(sortedAs('sv', organizations));
    // Within an organization, its services in that order; within a service, its subscriptions.
    for (const name of new Set(organizations)) {
      const own = rows.filter((row) => row[column('Organization')] === name);
      expect(inTurn(own.map((row) => row[column('Service')]!))).toEqual(
        sortedAs(
          'sv',
          own.map((row) => row[column('Service')]!),
        ),
      );
    }
    const services = subscriptionsByService(rows, column);
    expect(services.length).toBeGreaterThan(ORGANIZATIONS.length);
    for (const subscriptions of services) expect(inTurn(subscriptions)).toEqual(sortedAs('sv', subscriptions));

    const path = join(dir, 'month.xlsx');
    const meta = await new ReportLibrary(async () => ledger).meta(REPORT);
    await writeReportWorkbook(ledger, meta, path, { appVersion: 't', exportedAt: new Date('2026-11-08T00:00:00Z') });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(path);
    const column1 = (sheet: string) => {
      const values: string[] = [];
      workbook.getWorksheet(sheet)!.eachRow((row, number) => number > 1 && values.push(String(row.getCell(1).value ?? '')));
      return values;
    };
    expect(column1('Billing lines')).toEqual(organizations);
    const summary = column1('Summary').filter((name) => ORGANIZATIONS.includes(name));
    expect(inTurn(summary)).toEqual(sortedAs('sv', summary));
    const about = column1('About');
    expect(about).toContain('Names sorted as');
    let sortedAsText = '';
    workbook.getWorksheet('About')!.eachRow((row) => {
      if (row.getCell(1).value === 'Names sorted as') sortedAsText = String(row.getCell(2).value);
    });
    expect(sortedAsText).toMatch(/^Swedish \(ICU collation sv-u-kn-true, numbers by value\)/);
  });

  it.each([8, 9])(
    'ranks the months of an earlier ledger (schema %i) as it is brought up to date, subscriptions too, then in the profile’s order at their first read',
    async (schema) => {
      const donor = await month();
      await viewerOn(donor.ledger, 'sv').orders.of(REPORT); // saved in another order than the one brought up to date
      await donor.ledger.close();
      const dir = await temporaryDir();
      cleanups.push(() => dir.remove());
      (await ledgerAtSchema(dir.path, schema, join(donor.dir, 'ledger', 'closebook.duckdb'))).close();

      const ledger = await Ledger.open(dir.path, silentLogger);
      cleanups.push(() => ledger.close());
      expect(await ledger.all('SELECT name_order FROM reports')).toEqual([{ name_order: 'en' }]);
      const unranked = await ledger.all(
        `SELECT (SELECT count(*) FROM organizations WHERE name_rank IS NULL) + (SELECT count(*) FROM services WHERE name_rank IS NULL)
           + (SELECT count(*) FROM subscriptions WHERE name_rank IS NULL) AS missing`,
      );
      expect(unranked).toEqual([{ missing: '0' }]);
      // Every level in the order brought up to date: a service's subscriptions too, as an export lists them.
      const csv = join(dir.path, 'lines.csv');
      await writeCsv(ledger, REPORT, csv);
      const [header, ...rows] = parseCsv((await readFile(csv, 'utf8')).slice(1));
      const column = (name: string) => header!.indexOf(name);
      const services = subscriptionsByService(rows, column);
      for (const subscriptions of services) expect(inTurn(subscriptions)).toEqual(sortedAs('en', subscriptions));
      expect(
        services.some((subscriptions) => sortedAs('sv', subscriptions).join() !== sortedAs('en', subscriptions).join()),
        'a service whose subscriptions the two orders sort apart',
      ).toBe(true);

      const { viewer } = viewerOn(ledger, 'fi');
      const tops = (await viewer.window(request())).rows.map((row) => row.label);
      expect(inTurn(tops)).toEqual(sortedAs('fi', tops));
      expect(await ledger.all('SELECT name_order FROM reports')).toEqual([{ name_order: 'fi' }]);
    },
  );
});
