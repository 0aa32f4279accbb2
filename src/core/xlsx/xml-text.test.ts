import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { guardWorkbookText, xmlSafeText, xmlText } from './xml-text';

describe('text in a workbook', () => {
  it('drops control characters and marks non-characters and lone surrogates with U+FFFD, keeping tabs, line breaks and real astral characters', () => {
    expect(xmlSafeText('A\u0001B\u007fC')).toBe('ABC');
    expect(xmlSafeText('Cloud\uFFFE \uFFFF')).toBe('Cloud\uFFFD \uFFFD');
    expect(xmlSafeText('x\uD800y\uDC00')).toBe('x\uFFFDy\uFFFD');
    expect(xmlSafeText('tab\tline\nreturn\r 𝕮 Åkerberg')).toBe('tab\tline\nreturn\r 𝕮 Åkerberg');
  });

  it('escapes markup and makes text safe in one pass, and returns plain text as it is', () => {
    expect(xmlText(`Kühne & Nagel <GmbH> "x" 'y'`)).toBe('Kühne &amp; Nagel &lt;GmbH&gt; &quot;x&quot; &apos;y&apos;');
    expect(xmlText('A\u0001<B\uFFFE')).toBe('A&lt;B\uFFFD');
    expect(xmlText('lone \uDC00 half')).toBe('lone \uFFFD half');
    expect(xmlText('𝕮 & Åkerberg')).toBe('𝕮 &amp; Åkerberg');
    expect(xmlText('tab\tline\nreturn\r 𝕮')).toBe('tab\tline\nreturn\r 𝕮');
    expect(xmlText('Microsoft 365 Business Premium')).toBe('Microsoft 365 Business Premium');
  });

  it('makes every text exceljs writes safe, sheet names and cells alike, once guarded', async () => {
    guardWorkbookText();
    guardWorkbookText(); // idempotent: one wrapper, however often called
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet('Sheet\uFFFF').addRow(['Org \uFFFE\uD800 AB', 'plain']);
    const read = new ExcelJS.Workbook();
    await read.xlsx.load(await workbook.xlsx.writeBuffer());
    expect(read.worksheets[0]?.name).toBe('Sheet\uFFFD');
    expect(read.worksheets[0]?.getCell('A1').value).toBe('Org \uFFFD\uFFFD AB');
  });
});
