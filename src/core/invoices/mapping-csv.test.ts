import { describe, expect, it } from 'vitest';
import type { InvoiceMapping } from '@shared/schemas/invoices';
import { mappingCsv, parseMappingCsv } from './mapping-csv';
import { formulaProblems } from './mapping-store';

const MAPPING: InvoiceMapping = {
  customers: [
    {
      orgId: 'org-1',
      contactName: 'Åkerberg & Sons, "North"',
      customerNumber: 'C-1000',
      paymentTermsDays: 30,
      vatTreatment: 'domestic',
      buyerVatId: 'SE556677889901',
      country: 'SE',
      endpoint: '0007:5566778899',
      buyerReference: 'REF 7',
      taxCode: '',
    },
    {
      orgId: 'org-2',
      contactName: 'Kestrel Timber BV',
      customerNumber: '',
      paymentTermsDays: 14,
      vatTreatment: 'reverse-charge',
      buyerVatId: 'NL123456789B01',
      country: 'NL',
      endpoint: '',
      buyerReference: '',
      taxCode: 'Zero Rated EC Services',
    },
  ],
  items: [
    {
      match: 'product',
      id: 'p-1',
      itemCode: 'M365-BP',
      account: '3010',
      taxCode: '25% (VAT on Income)',
      vatCategory: 'S',
      vatRate: '12.5',
      exemptionReason: '',
      unitCode: 'C62',
      description: 'Microsoft 365 Business Premium',
    },
    {
      match: 'service',
      id: 'svc-1',
      itemCode: '',
      account: '3020',
      taxCode: 'Exempt',
      vatCategory: 'E',
      vatRate: '0',
      exemptionReason: 'Article 132',
      unitCode: 'HUR',
      description: '',
    },
  ],
};

describe('the mapping CSV', () => {
  it('reads back exactly what it writes (quotes, commas, non-ASCII, both kinds of row)', () => {
    expect(parseMappingCsv(mappingCsv(MAPPING))).toEqual(MAPPING);
  });

  it('reads a file a spreadsheet saved with semicolons and decimal commas', () => {
    const file = ['type;match;id;account;taxCode;vatCategory;vatRate', 'item;product;p-9;3010;MOMS;s;12,5'].join('\r\n');
    expect(parseMappingCsv(file).items).toEqual([expect.objectContaining({ id: 'p-9', vatCategory: 'S', vatRate: '12.5', unitCode: 'C62' })]);
  });

  it('names every problem by line and column and keeps nothing', () => {
    const file = [
      'type,match,id,contactName,paymentTermsDays,vatTreatment,account,taxCode,vatCategory,vatRate',
      'customer,,org-1,Acme,thirty,domestic,,,,',
      'customer,,org-1,Acme,30,domestic,,,,',
      'customer,,org-1,Acme again,30,domestic,,,,',
      'item,product,p-1,,,,3010,MOMS,S,0',
      'item,sku,p-2,,,,3010,MOMS,S,25',
      'vendor,,x,,,,,,,',
    ].join('\n');
    expect(() => parseMappingCsv(file)).toThrow(
      /^The mapping file was not imported; nothing changed\. Fix: row 2, paymentTermsDays: write the whole days to pay, from 0 to 365 \(such as 30\); row 4: customer org-1 is also on row 3; row 5, vatRate: a standard-rated \(S\) item needs a rate above 0; row 6, match: write one of product, item-code, service; row 7: type is "vendor"; write customer or item\.$/,
    );
    expect(() => parseMappingCsv('name,code\nx,y')).toThrow(/needs a header row with the columns type, match, id/);
    expect(() => parseMappingCsv('type,id\n"customer,x')).toThrow(/unclosed quote/);
  });

  it('names each problem by the column and row the spreadsheet shows, in plain words', () => {
    // Blank rows (left by a spreadsheet) still count as rows; the customer's fields are named as its columns.
    const file = ['type,id,contactName,paymentTermsDays,vatTreatment,customerTaxCode', '', ',,,,,', `customer,,Acme,30,domestic,${'x'.repeat(101)}`].join('\n');
    expect(() => parseMappingCsv(file)).toThrow(
      'The mapping file was not imported; nothing changed. Fix: row 4, id: is empty; fill it in; row 4, customerTaxCode: is longer than 100 characters.',
    );
    // A country is an ISO 3166 code, as an e-invoice needs: one that is not is named; one in lower case is kept upper.
    const countries = ['type,id,contactName,paymentTermsDays,vatTreatment,country', 'customer,o1,Acme,30,domestic,XX', 'customer,o2,Bolt,30,domestic,UK'];
    expect(() => parseMappingCsv(countries.join('\n'))).toThrow(
      'Fix: row 2, country: XX is not an ISO 3166 country code (SE, GB, DE …); row 3, country: UK is not an ISO 3166 country code: write GB (the United Kingdom).',
    );
    expect(parseMappingCsv([countries[0], 'customer,o1,Acme,30,domestic,fi'].join('\n')).customers[0]?.country).toBe('FI');
  });

  it('matches columns whatever their case, spaces or underscores, and refuses one it does not read or finds twice', () => {
    const file = ['TYPE;Match;ID;Account;Tax code;VAT_category;vat rate', 'item;product;p-9;3010;MOMS;S;25'].join('\n');
    expect(parseMappingCsv(file).items).toEqual([expect.objectContaining({ id: 'p-9', account: '3010', taxCode: 'MOMS', vatCategory: 'S', vatRate: '25' })]);
    // A column not read would leave its values out, and an import replaces the whole mapping: refused, naming it.
    expect(() => parseMappingCsv('type,id,contactName,VAT id\ncustomer,o1,Acme,SE1')).toThrow(
      /^The mapping file was not imported; nothing changed\. Closebook reads no column named "VAT id": rename it to one of type, match, id, .*, or remove it\.$/,
    );
    expect(() => parseMappingCsv('type,id,account,Account\nitem,p,1,2')).toThrow('The column "Account" is there twice: keep one.');
  });

  it('refuses a file that would replace the mapping with nothing, or whose letters could not be read', () => {
    expect(() => parseMappingCsv(mappingCsv({ customers: [], items: [] }))).toThrow(
      /has no customer or item rows, and an import replaces the whole mapping; nothing changed/,
    );
    // Excel's plain "CSV" is Windows-1252: read as UTF-8, its Å is lost.
    const windows1252 = Buffer.from('type,id,contactName\ncustomer,o1,\u00c5kerberg\n', 'latin1').toString('utf8');
    expect(() => parseMappingCsv(windows1252)).toThrow(/is not saved as UTF-8, so letters such as Å or é in it cannot be read; nothing changed/);
    const utf16 = new TextDecoder().decode(Buffer.from('\ufefftype,id\ncustomer,o1\n', 'utf16le'));
    expect(() => parseMappingCsv(utf16)).toThrow(/is not saved as UTF-8/);
  });

  it('finds every value a spreadsheet would run as a formula, naming the entry and field', () => {
    const hostile: InvoiceMapping = {
      customers: [{ ...MAPPING.customers[0]!, contactName: '=cmd|" /C calc"!A0', buyerReference: 'ok' }],
      items: [
        { ...MAPPING.items[0]!, description: 'Seats; +1' },
        { ...MAPPING.items[1]!, account: '\t3020' },
      ],
    };
    expect(formulaProblems(hostile)).toEqual([
      'customer org-1: contactName "=cmd|" /C calc"!A0" begins like a formula',
      'item product:p-1: description "Seats; +1" has = + - or @ after a comma, semicolon or tab, where a cell may begin',
      'item service:svc-1: account "\t3020" begins like a formula',
    ]);
    expect(formulaProblems(MAPPING)).toEqual([]);
  });

  it('reads back the keys its own export escaped, and names a value that would reach the accounting system escaped', () => {
    // A product id beginning like a formula is written with an apostrophe before it (and after its comma): read back exactly.
    const odd: InvoiceMapping = { customers: [], items: [{ ...MAPPING.items[0]!, id: '-Extra storage, +1TB' }] };
    expect(mappingCsv(odd)).toContain(`"'-Extra storage, '+1TB"`);
    expect(parseMappingCsv(mappingCsv(odd))).toEqual(odd);
    // A customer named like a formula is suggested with the apostrophe; filled in and imported, it is named, not kept
    // with the apostrophe a contact in the accounting system does not have.
    const suggested = mappingCsv(
      { customers: [], items: [] },
      { customers: [{ orgId: 'org-9', organization: '@Home Networks', customerNumber: '' }], services: [] },
    );
    const [header = '', row = ''] = suggested.trim().split('\r\n');
    const cells = row.split(',');
    const columns = header.split(',');
    cells[columns.indexOf('paymentTermsDays')] = '30';
    cells[columns.indexOf('vatTreatment')] = 'domestic';
    const filled = `${header}\n${cells.join(',')}`;
    expect(() => parseMappingCsv(filled)).toThrow(
      `row 2, contactName: "'@Home Networks" holds the apostrophe a spreadsheet file puts before = + - or @, which the accounting system would keep; reword it so that none of them begins it.`,
    );
  });
});
