import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { validateRows } from '@shared/consumption-rows';
import { workbookOf } from '@testing/hostile-workbooks';
import { SeededRandom } from '@testing/test-support';
import { consumptionTemplateCsv, consumptionTemplateXlsx, parseConsumptionCsv, parseConsumptionFile, parseConsumptionXlsx } from './consumption-file';

const SUB = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const ADDON = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';

describe('CSV import', () => {
  it('reads comma CSV with the spec header names', () => {
    const parsed = parseConsumptionCsv('a.csv', `subscriptionId,isAddon,addonId,quantity,consumptionId\n${SUB},false,,12.5,\n`);
    expect(parsed.problems).toEqual([]);
    expect(parsed.rows).toEqual([{ row: 2, subscriptionId: SUB, isAddon: 'false', addonId: '', quantity: '12.5', consumptionId: '' }]);
  });

  it('reads semicolon CSV with a BOM, CRLF, decimal commas, quoted fields and plain-words headers in any case', () => {
    const text = `\uFEFFSUBSCRIPTION ID;Is Add-On;add-on id;Quantity;Note\r\n${SUB};yes;${ADDON};"1.234,5";"said ""hi""; twice"\r\n${SUB};no;;0,25;\r\n`;
    const parsed = parseConsumptionCsv('b.csv', text);
    expect(parsed.extraColumns).toEqual(['Note']);
    expect(parsed.rows.map((r) => [r.row, r.isAddon, r.addonId, r.quantity, r.extra])).toEqual([
      [2, 'yes', ADDON, '1234.5', ['said "hi"; twice']],
      [3, 'no', '', '0.25', ['']],
    ]);
    expect(validateRows(parsed.rows).problems).toEqual([]);
    // There a point that cannot group thousands is a decimal point, and one that could ("1.500") is refused.
    const subscription = (n: number) => `3f2504e0-4f89-41d3-9a0c-0305e82c330${n}`;
    const points = parseConsumptionCsv(
      'p.csv',
      `Subscription ID;Quantity\n${[0.125, 1.5, '1.500', '1.500,5'].map((q, n) => `${subscription(n + 4)};${q}`).join('\n')}\n`,
    );
    expect(points.rows.map((r) => r.quantity)).toEqual(['0.125', '1.5', '1,500', '1500.5']);
    const read = validateRows(points.rows);
    expect(read.records.map((record) => record.quantity)).toEqual([0.125, 1.5, 1500.5]);
    expect(read.problems).toEqual([{ row: 4, field: 'quantity', message: expect.stringContaining('could be a thousand or a decimal') }]);
    // A ';'-separated file says its commas are decimal; in a ','-separated one "1,250" could be either, so it is refused.
    const commaFile = parseConsumptionCsv('b2.csv', `Subscription ID,Quantity\n${SUB},"1,250"\n${SUB},"2,5"\n`);
    expect(commaFile.rows.map((r) => r.quantity)).toEqual(['1,250', '2,5']);
    const { problems, records } = validateRows(commaFile.rows);
    expect(problems).toEqual([{ row: 2, field: 'quantity', message: expect.stringContaining('write 1250 for a whole number, or 1.250') }]);
    expect(records).toEqual([{ subscriptionId: SUB, isAddon: false, quantity: 2.5 }]);
  });

  it("keeps the user's own columns beside each row (not sent), up to a limit, in CSV and Excel alike", async () => {
    const parsed = parseConsumptionCsv('own.csv', `Customer,Subscription ID,Cost centre,Quantity,\nContoso,${SUB},CC-7,"2,5",\n`);
    expect(parsed.extraColumns).toEqual(['Customer', 'Cost centre']);
    expect(parsed.ignoredColumns).toEqual([]);
    expect(parsed.rows).toEqual([{ row: 2, subscriptionId: SUB, isAddon: '', addonId: '', quantity: '2,5', consumptionId: '', extra: ['Contoso', 'CC-7'] }]);
    expect(validateRows(parsed.rows).records).toEqual([{ subscriptionId: SUB, isAddon: false, quantity: 2.5 }]);

    const many = Array.from({ length: 22 }, (_, index) => `Own ${index + 1}`);
    const wide = parseConsumptionCsv('wide.csv', `Subscription ID,Quantity,${many.join(',')}\n${SUB},1,${many.map((_, index) => index + 1).join(',')}\n`);
    expect(wide.extraColumns).toEqual(many.slice(0, 20));
    expect(wide.ignoredColumns).toEqual(['Own 21', 'Own 22']);
    expect(wide.rows[0]?.extra).toHaveLength(20);

    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Usage');
    sheet.addRow(['Subscription ID', 'Quantity', 'Customer']);
    sheet.addRow([SUB, 4, 'Fabrikam']);
    const xlsx = await parseConsumptionXlsx('own.xlsx', new Uint8Array(await workbook.xlsx.writeBuffer()));
    expect(xlsx.extraColumns).toEqual(['Customer']);
    expect(xlsx.rows[0]?.extra).toEqual(['Fabrikam']);
  });

  it('keeps file row numbers when there are blank lines, and reads tab-separated text pasted from a sheet', () => {
    const parsed = parseConsumptionCsv('c.csv', `Subscription ID,Quantity\n\n${SUB},3\n`);
    expect(parsed.rows.map((r) => r.row)).toEqual([3]);
    const pasted = parseConsumptionCsv('pasted.csv', `Subscription ID\tQuantity\n${SUB}\t4\n`);
    expect(pasted.rows[0]?.quantity).toBe('4');
  });

  it('says which columns are missing, and when there are no rows', () => {
    expect(parseConsumptionCsv('d.csv', 'Subscription,Amount\nx,1\n').problems[0]).toMatch(/no "Quantity" column/);
    expect(parseConsumptionCsv('e.csv', 'Subscription ID,Quantity\n').problems[0]).toMatch(/no consumption rows/);
    expect(parseConsumptionCsv('f.csv', '').problems[0]).toMatch(/empty/);
    expect(parseConsumptionCsv('g.csv', `Subscription ID,Quantity\n"${SUB},1\n`).problems[0]).toMatch(/quote/);
  });

  it('refuses other kinds of file by name, and a file named .csv that is not text by what it is', async () => {
    expect((await parseConsumptionFile('notes.pdf', new Uint8Array([1, 2]))).problems[0]).toMatch(/\.csv or \.xlsx/);
    const named = async (bytes: number[] | string) =>
      (await parseConsumptionFile('usage.csv', typeof bytes === 'string' ? new TextEncoder().encode(bytes) : new Uint8Array(bytes))).problems[0];
    expect(await named('%PDF-1.4\n1 0 obj')).toBe(
      'usage.csv is not a CSV file: it is a PDF. Save the consumption sheet as CSV (or open the Excel workbook itself, as .xlsx).',
    );
    expect(await named([0x50, 0x4b, 0x03, 0x04, 20, 0])).toMatch(/^usage\.csv is not a CSV file: it is an Excel workbook or another zip file\./);
    expect(await named([0x53, 0x75, 0x62, 0, 1, 2])).toMatch(/it is not text \(it holds NUL bytes\)/);
    // UTF-16 (Excel's "Unicode Text") has NULs and is text.
    const utf16 = new Uint8Array(Buffer.from(`\ufeffSubscription ID\tQuantity\r\n${SUB}\t2\r\n`, 'utf16le'));
    expect((await parseConsumptionFile('usage.txt', utf16)).rows.map((row) => row.quantity)).toEqual(['2']);
  });

  it("follows Excel's sep= line, which is not a row", () => {
    const parsed = parseConsumptionCsv('s.csv', `sep=;\r\nSubscription ID;Quantity\r\n${SUB};2,5\r\n`);
    expect(parsed.problems).toEqual([]);
    expect(parsed.rows).toEqual([expect.objectContaining({ row: 2, subscriptionId: SUB, quantity: '2.5' })]);
  });
});

describe('XLSX import', () => {
  async function workbook(sheets: Record<string, unknown[][]>): Promise<Uint8Array> {
    const book = new ExcelJS.Workbook();
    for (const [name, rows] of Object.entries(sheets)) {
      const sheet = book.addWorksheet(name);
      for (const values of rows) sheet.addRow(values);
    }
    return new Uint8Array(await book.xlsx.writeBuffer());
  }

  it('reads the first sheet, or the one picked, with numbers and booleans as cells', async () => {
    const bytes = await workbook({
      Notes: [['nothing here']],
      March: [
        ['Subscription ID', 'Is add-on', 'Add-on ID', 'Quantity'],
        [SUB, true, ADDON, 12.5],
        [SUB, false, null, 3],
      ],
    });
    const first = await parseConsumptionXlsx('m.xlsx', bytes);
    expect(first.sheets).toEqual(['Notes', 'March']);
    expect(first.problems[0]).toMatch(/no "Subscription ID" column/);
    const march = await parseConsumptionXlsx('m.xlsx', bytes, 'March');
    expect(march.problems).toEqual([]);
    expect(march.rows).toEqual([
      { row: 2, subscriptionId: SUB, isAddon: 'true', addonId: ADDON, quantity: '12.5', consumptionId: '' },
      { row: 3, subscriptionId: SUB, isAddon: 'false', addonId: '', quantity: '3', consumptionId: '' },
    ]);
  });

  it('stops reading at the row cap: a small file that unpacks into 120,000 rows is refused quickly, in little memory', async () => {
    const rows: unknown[][] = [['Subscription ID', 'Quantity']];
    for (let index = 0; index < 120_000; index++) rows.push([SUB, 1]);
    const bytes = await workbook({ Big: rows });
    const started = performance.now();
    const before = process.memoryUsage().rss;
    const parsed = await parseConsumptionXlsx('big.xlsx', bytes);
    const took = performance.now() - started;
    expect(parsed.problems[0]).toMatch(/more than 50,000 rows/);
    expect(parsed.rows).toEqual([]);
    // Loading a whole 200,000-row workbook took 6.5 s; the stream stops at the cap (0.7 s for that file).
    expect(took).toBeLessThan(3_000);
    expect(process.memoryUsage().rss - before).toBeLessThan(250 * 1024 * 1024);
  });

  it('names a formula cell saved without its value, in the columns it reads only; cuts long values in messages', async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('March');
    sheet.addRow(['Subscription ID', 'Quantity', 'My note']);
    sheet.addRow([SUB, 2, 'fine']);
    sheet.getCell('B2').value = { formula: 'A9*2' } as ExcelJS.CellFormulaValue;
    sheet.getCell('C2').value = { formula: 'A9&"x"' } as ExcelJS.CellFormulaValue;
    sheet.addRow([SUB, { formula: '1+2', result: 3 }]);
    const parsed = await parseConsumptionXlsx('f.xlsx', new Uint8Array(await book.xlsx.writeBuffer()));
    expect(parsed.problems).toEqual([expect.stringMatching(/^Cell B2 holds a formula saved without a calculated value/)]);
    expect(JSON.stringify(parsed)).not.toContain('[object Object]');

    const long = 'x'.repeat(5_000);
    const { problems } = validateRows([{ row: 2, subscriptionId: long, isAddon: 'no', addonId: '', quantity: long, consumptionId: '' }]);
    for (const problem of problems) expect(problem.message.length, problem.field).toBeLessThan(160);
    expect(problems.map((problem) => problem.message)).toContain(`"${'x'.repeat(57)}…" (5,000 characters) is not a number.`);
  });

  it('reads a number in a date style as the date it shows, and refuses it as a quantity', async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('March');
    sheet.addRow(['Subscription ID', 'Quantity', 'Used on', 'At']);
    // Excel in some languages turns a typed 1.5 into 1 May; the file holds the date's number (45413) and its style.
    sheet.addRow([SUB, new Date(Date.UTC(2024, 4, 1)), new Date(Date.UTC(2024, 4, 1)), 0.5]);
    sheet.getCell('B2').numFmt = 'dd/mm/yyyy';
    sheet.getCell('C2').numFmt = '[$-409]d-mmm-yy;@';
    sheet.getCell('D2').numFmt = 'hh:mm';
    sheet.addRow([SUB.replace(/1$/, '2'), 45413, 3, 1.5]);
    sheet.getCell('B3').numFmt = '#,##0.00 "GB"';
    // A number as the cell shows it (15 digits, no exponent), not as the file keeps it.
    sheet.addRow([SUB.replace(/1$/, '3'), { formula: '0.1+0.2', result: 0.1 + 0.2 }, 0.0000005, 1e21]);
    const parsed = await parseConsumptionXlsx('d.xlsx', new Uint8Array(await book.xlsx.writeBuffer()));
    expect(parsed.rows.map((row) => [row.quantity, ...(row.extra ?? [])])).toEqual([
      ['2024-05-01', '2024-05-01', '1899-12-31 12:00:00'],
      ['45413', '3', '1.5'],
      ['0.3', '0.0000005', '1000000000000000000000'],
    ]);
    expect(validateRows(parsed.rows).problems).toEqual([
      { row: 2, field: 'quantity', message: '"2024-05-01" is a date, not a quantity: format the column as Number and type the quantity again.' },
    ]);
  });

  it('says a file is not a workbook, and names a missing sheet', async () => {
    expect((await parseConsumptionXlsx('x.xlsx', new Uint8Array([80, 75, 3, 4, 0, 0]))).problems[0]).toMatch(/not a readable Excel workbook/);
    expect((await parseConsumptionXlsx('m.xlsx', await workbook({ A: [['x']] }), 'B')).problems[0]).toMatch(/no sheet "B"/);
  });

  it('reads what ExcelJS writes — several sheets, formulas, the template, past the row cap — and refuses a cut workbook', async () => {
    // ExcelJS's own streaming reader failed now and then on such files (a race in its zip stream): the reader is now
    // Closebook's own, and these are read the same every time.
    const bytes = await workbook({
      Notes: [['nothing here']],
      March: [
        ['Subscription ID', 'Is add-on', 'Add-on ID', 'Quantity', 'Customer'],
        [SUB, true, ADDON, 12.5, 'Contoso'],
        [SUB, false, null, 3, 'Fabrikam'],
      ],
      Formulas: [
        ['Subscription ID', 'Quantity'],
        [SUB, { formula: 'A9*2' }],
      ],
    });
    const big: unknown[][] = [['Subscription ID', 'Quantity']];
    for (let index = 0; index < 60_000; index++) big.push([SUB, 1]);
    const [template, tooLong] = [await consumptionTemplateXlsx(), await workbook({ Big: big })];
    for (let round = 0; round < 3; round++) {
      expect((await parseConsumptionXlsx('m.xlsx', bytes)).problems[0]).toMatch(/no "Subscription ID" column/);
      const march = await parseConsumptionXlsx('m.xlsx', bytes, 'March');
      expect(march).toMatchObject({ sheets: ['Notes', 'March', 'Formulas'], sheet: 'March', problems: [], extraColumns: ['Customer'] });
      expect(march.rows).toEqual([
        { row: 2, subscriptionId: SUB, isAddon: 'true', addonId: ADDON, quantity: '12.5', consumptionId: '', extra: ['Contoso'] },
        { row: 3, subscriptionId: SUB, isAddon: 'false', addonId: '', quantity: '3', consumptionId: '', extra: ['Fabrikam'] },
      ]);
      expect((await parseConsumptionXlsx('m.xlsx', bytes, 'Formulas')).problems[0]).toMatch(/^Cell B2 holds a formula/);
      expect((await parseConsumptionXlsx('m.xlsx', bytes, 'April')).problems).toEqual(['m.xlsx has no sheet "April".']);
      expect((await parseConsumptionXlsx('t.xlsx', template)).problems).toEqual(['t.xlsx has a header row but no consumption rows.']);
      expect((await parseConsumptionXlsx('big.xlsx', tooLong)).problems).toEqual([
        'The file has more than 50,000 rows; Closebook takes at most 50,000 in one batch. Split it into smaller files.',
      ]);
    }
    expect((await parseConsumptionXlsx('x.xlsx', bytes.slice(0, bytes.length - 40))).problems[0]).toMatch(/not a readable Excel workbook/);
  });

  it('reads workbooks as other programs write them: prefixed elements, inline and rich text, no cell references, stored parts', async () => {
    const rows = [
      // A phonetic guide (<rPh>) is not part of the text; a formula whose value is empty text has a value.
      `<x:row r="2"><x:c r="A2" t="s"><x:v>2</x:v></x:c><x:c r="B2"><x:v>12.50</x:v></x:c><x:c r="C2" t="str"><x:f>IF(1,"","")</x:f><x:v></x:v></x:c><x:c r="D2" t="s"><x:v>3</x:v></x:c></x:row>`,
      // Without references each row and cell follows the one before; an error result reads as its code.
      `<x:row><x:c t="inlineStr"><x:is><x:r><x:t>${SUB.slice(0, 20)}</x:t></x:r><x:r><x:t>${SUB.slice(20)}</x:t></x:r></x:is></x:c><x:c><x:v>1E-3</x:v></x:c><x:c t="e"><x:f>1/0</x:f><x:v>#DIV/0!</x:v></x:c><x:c t="b"><x:v>1</x:v></x:c></x:row>`,
    ].join('');
    const sheet = `<?xml version="1.0"?><x:worksheet xmlns:x="${MAIN}"><x:sheetData><x:row r="1"><x:c r="A1" t="s"><x:v>0</x:v></x:c><x:c r="B1" t="s"><x:v>1</x:v></x:c><x:c r="C1" t="inlineStr"><x:is><x:t>Note</x:t></x:is></x:c><x:c r="D1" t="inlineStr"><x:is><x:t>Name</x:t></x:is></x:c></x:row>${rows}</x:sheetData></x:worksheet>`;
    const shared = `<?xml version="1.0"?><sst xmlns="${MAIN}"><si><t>Subscription ID</t></si><si><r><t>Quan</t></r><r><rPr><b/></rPr><t>tity</t></r></si><si><t>${SUB}</t></si><si><t>漢字</t><rPh sb="0" eb="2"><t>カンジ</t></rPh></si></sst>`;
    const parsed = await parseConsumptionXlsx('other.xlsx', new Uint8Array(workbookOf({ content: sheet, stored: true }, { content: shared })));
    expect(parsed.problems).toEqual([]);
    expect(parsed.rows).toEqual([
      { row: 2, subscriptionId: SUB, isAddon: '', addonId: '', quantity: '12.5', consumptionId: '', extra: ['', '漢字'] },
      { row: 3, subscriptionId: SUB, isAddon: '', addonId: '', quantity: '0.001', consumptionId: '', extra: ['#DIV/0!', 'true'] },
    ]);
  });

  it('says what is wrong with a damaged workbook, and with an .xls or a workbook with a password', async () => {
    const bytes = Buffer.from(
      await workbook({
        March: [
          ['Subscription ID', 'Quantity'],
          [SUB, 1],
        ],
      }),
    );
    const sheetAt = bytes.indexOf('xl/worksheets/sheet1.xml') + 'xl/worksheets/sheet1.xml'.length;
    const flipped = Buffer.from(bytes);
    flipped[sheetAt + 40] = (flipped[sheetAt + 40] as number) ^ 0x10;
    expect((await parseConsumptionXlsx('flip.xlsx', flipped)).problems[0]).toMatch(
      /^flip\.xlsx is not a readable Excel workbook \(\.xlsx\): its part "xl\/worksheets\/sheet1\.xml" (does not match its checksum|does not unpack|is not well-formed XML)/,
    );
    const xls = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(512)]);
    expect((await parseConsumptionXlsx('old.xlsx', xls)).problems).toEqual([
      'old.xlsx is not a readable Excel workbook (.xlsx): it is an older Excel file (.xls) or has a password to open it. Save it again from Excel, or export it as CSV.',
    ]);
  });

  it('makes templates whose headers read back as every field', async () => {
    expect(parseConsumptionCsv('t.csv', consumptionTemplateCsv()).problems[0]).toMatch(/no consumption rows/);
    const template = await parseConsumptionXlsx('t.xlsx', await consumptionTemplateXlsx());
    expect(template.ignoredColumns).toEqual([]);
    expect(template.problems[0]).toMatch(/no consumption rows/);
  });
});

describe('malformed files', () => {
  it('turns 1,000 generated malformed files into clear problems or valid rows, never a crash', async () => {
    const random = new SeededRandom(20261122);
    const pieces = [
      'Subscription ID',
      'Quantity',
      'Is add-on',
      'Add-on ID',
      'junk',
      SUB,
      ADDON,
      'yes',
      'maybe',
      '12,5',
      '-3',
      '"',
      '""',
      ';',
      ',',
      '\t',
      '\n',
      '\r\n',
      '\uFEFF',
      '\u0000',
      '=cmd()',
      'ÅÄÖ',
      '9'.repeat(400),
      ' ',
    ];
    let withProblems = 0;
    for (let file = 0; file < 1000; file++) {
      const length = random.int(0, 60);
      const text = Array.from({ length }, () => random.pick(pieces)).join(random.chance(0.5) ? ',' : '');
      const asXlsx = random.chance(0.1);
      const parsed = await parseConsumptionFile(asXlsx ? `f${file}.xlsx` : `f${file}.csv`, new TextEncoder().encode(text));
      const { problems, records } = validateRows(parsed.rows);
      const all = [...parsed.problems, ...problems.map((p) => p.message)];
      for (const message of all) expect(message.length).toBeGreaterThan(10);
      for (const problem of problems) expect(problem.row).toBeGreaterThanOrEqual(0);
      if (all.length) withProblems++;
      else expect(records.length).toBe(parsed.rows.length);
    }
    expect(withProblems).toBeGreaterThan(900);
  });
});
