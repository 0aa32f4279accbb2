import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import type { DeliverFile, Ports } from '../ports/ports';
import { testPorts } from '@testing/test-support';
import { createCopyPrint } from './handlers';
import { copiedTable } from './table-text';

const tableText = (rows: string[][]) => copiedTable(rows).text;
const tableHtml = (rows: string[][]) => copiedTable(rows).html;

const cleanups = cleanupsAfterEach();

async function handlersWith(overrides: Partial<Ports>) {
  const { ports, cleanup } = await testPorts(overrides);
  cleanups.push(cleanup);
  return { ports, handlers: createCopyPrint(ports).handlers };
}

describe('copying a table', () => {
  it('is tab-separated with CRLF between rows; tabs and line breaks inside a cell become spaces', () => {
    expect(
      tableText([
        ['Organization', 'Sales'],
        ['Contoso\tAB', '1147433.0305'],
        ['two\r\nlines', '0'],
      ]),
    ).toBe('Organization\tSales\r\nContoso AB\t1147433.0305\r\ntwo lines\t0');
  });

  it('escapes text Excel would run as a formula, but leaves plain numbers (negative ones too) as numbers', () => {
    expect(tableText([['=HYPERLINK("http://evil.example","x")', '-12.50', '+46 8 123', '@SUM(A1)', '-credit', '-1+2', 'A-1']])).toBe(
      `'=HYPERLINK("http://evil.example","x")\t-12.50\t'+46 8 123\t'@SUM(A1)\t'-credit\t'-1+2\tA-1`,
    );
    expect(tableText([['-1234,50', '-0,5%', '-1,234.50']])).toBe("-1234,50\t-0,5%\t'-1,234.50"); // a decimal comma stays a number; grouping is not copied
    expect(tableText([['\t=1+1']])).toBe(" '=1+1"); // the tab became a space, and a reader that trims it still finds text
  });

  it('keeps as text what a spreadsheet would not keep as a number: leading zeros, more than 15 digits', () => {
    const cells = ['000123', '0.50', '-0,5', '123456789012345', '1234567890123456', '-1234567.891234567', '0'];
    expect(tableText([cells])).toBe(cells.join('\t')); // plain text cannot say which is text: the HTML does
    const text = (cell: string) => `<td style="mso-number-format:'\\@'">${cell}</td>`;
    expect(tableHtml([cells])).toBe(
      `<meta charset="utf-8"><table><tr>${text('000123')}<td>0.50</td><td>-0,5</td><td>123456789012345</td>${text('1234567890123456')}${text('-1234567.891234567')}<td>0</td></tr></table>`,
    );
    expect(tableHtml([['<b>AT&T "x"</b>', '=1']])).toBe(
      `<meta charset="utf-8"><table><tr>${text('&lt;b&gt;AT&amp;T &quot;x&quot;&lt;/b&gt;')}${text("'=1")}</tr></table>`,
    );
  });

  it('goes to the host clipboard when there is one, and back to the page when there is none', async () => {
    const written: string[] = [];
    const desktop = await handlersWith({ writeClipboard: async ({ text }) => void written.push(text) });
    expect(
      await desktop.handlers['clipboard:copy-table']({
        rows: [
          ['a', '=1'],
          ['b', '2'],
        ],
      }),
    ).toEqual({ copied: true });
    expect(written).toEqual(["a\t'=1\r\nb\t2"]);

    const browser = await handlersWith({});
    expect(
      await browser.handlers['clipboard:copy-table']({
        rows: [
          ['a', '=1'],
          ['b', '2'],
        ],
      }),
    ).toEqual({ copied: false, text: "a\t'=1\r\nb\t2", html: expect.stringContaining('<td>2</td>') });
  });
});

describe('printing the window to PDF', () => {
  it('prints first, then hands the bytes to the user as <name>.pdf', async () => {
    const order: string[] = [];
    const pdf = new TextEncoder().encode('%PDF-1.7 test');
    let savedTo = '';
    const deliver: DeliverFile = async (fileName, kind, write) => {
      order.push(`deliver ${kind} ${fileName}`);
      savedTo = join(ports.dataDir, fileName);
      await write(savedTo);
      return { kind: 'saved', path: savedTo };
    };
    const { ports, handlers } = await handlersWith({ deliver, printToPdf: async () => (order.push('print'), pdf) });
    expect(await handlers['view:print-pdf']({ fileName: 'Billing 2026-10: Invoicing' })).toEqual({
      kind: 'saved',
      path: join(ports.dataDir, 'Billing 2026-10- Invoicing.pdf'),
    });
    expect(order).toEqual(['print', 'deliver pdf Billing 2026-10- Invoicing.pdf']);
    expect(await readFile(savedTo, 'utf8')).toBe('%PDF-1.7 test');
    expect(await handlers['view:print-pdf']({ fileName: 'Summary.PDF' })).toMatchObject({ path: join(ports.dataDir, 'Summary.PDF') });
  });

  it("is refused where the host cannot print, pointing to the browser's print", async () => {
    const { handlers } = await handlersWith({ deliver: async () => ({ kind: 'cancelled' }) });
    await expect(handlers['view:print-pdf']({ fileName: 'Summary' })).rejects.toMatchObject({
      code: 'internal',
      message: expect.stringMatching(/browser's Print/),
    });
  });
});
