import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from './csv';

describe('CSV cells', () => {
  it('escapes text a spreadsheet would run as a formula, whatever character starts it', () => {
    expect(csvCell('=HYPERLINK("http://evil.example","Click")')).toBe(`"'=HYPERLINK(""http://evil.example"",""Click"")"`);
    for (const start of ['=', '+', '-', '@', '\t']) expect(csvCell(`${start}cmd|' /C calc'!A0`)).toBe(`'${start}cmd|' /C calc'!A0`);
    expect(csvCell('\r=1+1')).toBe(`"'\r=1+1"`); // escaped, then quoted for its line break
    expect(csvCell('-credit note')).toBe("'-credit note");
    expect(csvCell('Contoso AB')).toBe('Contoso AB');
  });

  it('leaves amounts as numbers: a negative amount stays -12.5, in a number column or as a number', () => {
    expect(csvCell('-12.5', 'number')).toBe('-12.5');
    expect(csvCell(-12.5)).toBe('-12.5');
    expect(csvCell('0', 'number')).toBe('0');
  });

  it('escapes anything in a number column that is not a plain number', () => {
    expect(csvCell('=1+1', 'number')).toBe("'=1+1");
    expect(csvCell('-1+2', 'number')).toBe("'-1+2");
    expect(csvCell('+12', 'number')).toBe("'+12");
  });

  it('quotes per RFC 4180: commas, quotes and line breaks inside a cell; records end in CRLF', () => {
    expect(csvCell('Smith, "Jr"')).toBe('"Smith, ""Jr"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(null)).toBe('');
    expect(csvLine(['a', csvCell('b,c'), '1'])).toBe('a,"b,c",1\r\n');
  });
});
