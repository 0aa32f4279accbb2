import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from './csv';

describe('CSV cells', () => {
  it('escapes text a spreadsheet would run as a formula, whatever character starts it', () => {
    expect(csvCell('=HYPERLINK("http://evil.example","Click")')).toBe(`"'=HYPERLINK(""http://evil.example"",""Click"")"`);
    for (const start of ['=', '+', '-', '@']) expect(csvCell(`${start}cmd|' /C calc'!A0`)).toBe(`'${start}cmd|' /C calc'!A0`);
    expect(csvCell(`\tcmd|' /C calc'!A0`)).toBe(`"'\tcmd|' /C calc'!A0"`); // quoted for its tab
    expect(csvCell('\r=1+1')).toBe(`"'\r'=1+1"`); // escaped at the start and after the line break, then quoted
    expect(csvCell('-credit note')).toBe("'-credit note");
    expect(csvCell('Contoso AB')).toBe('Contoso AB');
  });

  it('escapes a formula wherever a reader splitting on comma, semicolon, tab or line break would start a cell', () => {
    expect(csvCell("Acme;=cmd|' /C calc'!A0;")).toBe(`"Acme;'=cmd|' /C calc'!A0;"`);
    expect(csvCell('Acme,+SUM(A1)')).toBe(`"Acme,'+SUM(A1)"`);
    expect(csvCell('two\n@SUM(1)')).toBe(`"two\n'@SUM(1)"`);
    expect(csvCell('a\t-2+3')).toBe(`"a\t'-2+3"`);
    expect(csvCell('x;  =1')).toBe(`"x;  '=1"`);
    expect(csvCell('Smith; Jones - Partners')).toBe('"Smith; Jones - Partners"'); // a dash inside text starts no cell
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
