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
      /^The mapping file was not imported; nothing changed\. Fix: line 2, paymentTermsDays: .*; line 4: customer org-1 is also on line 3; line 5, vatRate: a standard-rated \(S\) item needs a rate above 0; line 6, match: .*; line 7: type is "vendor"; write customer or item\.$/,
    );
    expect(() => parseMappingCsv('name,code\nx,y')).toThrow(/needs a header row with the columns type, match, id/);
    expect(() => parseMappingCsv('type,id\n"customer,x')).toThrow(/unclosed quote/);
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
      'item product:p-1: description "Seats; +1" begins like a formula',
      'item service:svc-1: account "\t3020" begins like a formula',
    ]);
    expect(formulaProblems(MAPPING)).toEqual([]);
  });
});
