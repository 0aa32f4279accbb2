import Papa from 'papaparse';

/**
 * Fills in the rows `invoices map --export` left to fill, as a finance user would in a spreadsheet: each customer
 * domestic at 30 days (the BVs reverse charge, with a VAT id), each service's default at 25 % on `account`, and a
 * Peppol endpoint and buyer reference for the e-invoices. Contact names get " (AR)", so a test tells them from the
 * organizations' own names.
 */
export function fillMapping(csv: string, account = '3010'): string {
  const { data } = Papa.parse<Record<string, string>>(csv.replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: true });
  const rows = data.map((row) => {
    if (row.type !== 'customer') return { ...row, account, taxCode: '25% (VAT on Income)', vatCategory: 'S', vatRate: '25' };
    const reverse = / BV$/.test(row.contactName ?? '');
    return {
      ...row,
      contactName: `${row.contactName} (AR)`,
      paymentTermsDays: '30',
      vatTreatment: reverse ? 'reverse-charge' : 'domestic',
      country: reverse ? 'NL' : 'SE',
      buyerVatId: reverse ? 'NL123456789B01' : '',
      customerTaxCode: reverse ? 'Zero Rated EC Services' : '',
      endpoint: '0007:5560360793',
      buyerReference: `Ref ${row.customerNumber || row.id}`,
    };
  });
  return Papa.unparse(rows);
}
