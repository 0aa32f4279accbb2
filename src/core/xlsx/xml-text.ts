import { createRequire } from 'node:module';
import { AppError } from '@shared/errors';

/**
 * Text as XML 1.0 can hold it. A workbook is XML: one character it forbids — a control character, U+FFFE or
 * U+FFFF, half of a surrogate pair — and a reader gives up at that cell (LibreOffice silently cuts the sheet
 * there). Control characters are dropped (they show nothing); the non-characters and lone surrogates become
 * U+FFFD, the mark for "a character was here that could not be kept". Tab, line feed and carriage return stay.
 */
// The control characters XML 1.0 forbids (not tab, line feed or carriage return), as the body of a character class.
const CONTROL_CHARACTERS = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f';
const CONTROL = new RegExp(`[${CONTROL_CHARACTERS}]`, 'g');
const NOT_A_CHARACTER = /[\uFFFE\uFFFF]|\p{Cs}/gu;
const NOT_XML = new RegExp(`[${CONTROL_CHARACTERS}\\uFFFE\\uFFFF]|\\p{Cs}`, 'u');

/**
 * Every character xmlSafeText may change, found by a plain character class (a surrogate of a well-formed pair too:
 * such text takes the exact test). Tested first, it keeps the exact test off nearly all text: a unicode-aware
 * pattern costs several times as much, and a 1,000,000-line workbook has more than ten million texts.
 */
const MAYBE_UNSAFE = `${CONTROL_CHARACTERS}\\uD800-\\uDFFF\\uFFFE\\uFFFF`;
const MAYBE_NOT_XML = new RegExp(`[${MAYBE_UNSAFE}]`);

export function xmlSafeText(text: string): string {
  return MAYBE_NOT_XML.test(text) && NOT_XML.test(text) ? text.replace(CONTROL, '').replace(NOT_A_CHARACTER, '\uFFFD') : text;
}

/** What XML markup must escape, and as what. */
const MARKUP = /[<>&'"]/g;
const ENTITIES: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' };

/** Anything xmlText changes: markup, or what xmlSafeText may. */
const NOT_PLAIN = new RegExp(`[<>&'"${MAYBE_UNSAFE}]`);

/** Text as the content of an XML element or attribute: safe (xmlSafeText) and its markup escaped; most text is returned as it is. */
export function xmlText(text: string): string {
  return NOT_PLAIN.test(text) ? xmlSafeText(text).replace(MARKUP, (character) => ENTITIES[character] as string) : text;
}

/**
 * exceljs writes every text of a workbook — cell values, sheet names, headers and footers — through one function,
 * `utils.xmlEncode`, which escapes markup and drops control characters but lets U+FFFE, U+FFFF and lone surrogates
 * through. Making it pass text through xmlSafeText first covers every string Closebook hands exceljs, whoever
 * writes it; checked, so an exceljs that moved the function fails loudly instead of writing broken workbooks.
 * Called before any workbook is made (it is idempotent).
 */
export function guardWorkbookText(): void {
  const utils = createRequire(__filename)('exceljs/lib/utils/utils') as { xmlEncode?: ((text: string) => string) & { xmlSafe?: true } };
  const encode = utils.xmlEncode;
  if (typeof encode !== 'function')
    throw new AppError(
      'internal',
      "The workbook cannot be written: the installed exceljs no longer has its text encoder. Reinstall Closebook's dependencies (npm ci).",
    );
  if (encode.xmlSafe) return;
  utils.xmlEncode = Object.assign((text: string) => encode(xmlSafeText(text)), { xmlSafe: true as const });
}
