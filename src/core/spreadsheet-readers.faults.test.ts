import { execFileSync, spawnSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Submission } from '@shared/schemas/consumption';
import { FUZZ_SEED, Fuzz, saveFigures } from '@testing/fuzz';
import { ledgerWithMonth } from '@testing/ledger-month';
import { temporaryDir } from '@testing/test-support';
import { failedRowsCsv } from './consumption/failed-rows';
import { copiedTable } from './copy-print/table-text';
import { exportReport } from './reports/report-export';
import { ReportLibrary } from './reports/report-library';

/**
 * Files Closebook writes for a spreadsheet, opened by a real one: LibreOffice headless (Debian's
 * libreoffice-calc-nogui, installed by the setup). Names, PO numbers and messages from the service carry formula
 * payloads behind every character a reader might split on — comma, semicolon, tab, line breaks — and each CSV and
 * the clipboard's tab-separated text is opened with each of those separators: no cell may hold a formula. Names
 * also carry characters XML 1.0 forbids, and the workbook must open whole: every row of every sheet.
 */

const REPORT = '00000000-0000-4000-8000-0000000000f1';
const SEPARATORS = { comma: 44, semicolon: 59, tab: 9 } as const;
const TRIGGERS = ['=', '+', '-', '@'];
const PAYLOADS = ["cmd|' /C calc'!A0", 'SUM(1+1)*cmd|calc', 'HYPERLINK("http://evil.example","Click")', '1+1', 'A1'];
const SPLITS = [',', ';', '\t', '\n', '\r\n', '\r', ''];
const NOT_XML = ['\uFFFE', '\uFFFF', '\uD800', '\uDFFF', '\u0001', '\u001F', '\u007F'];

const soffice = spawnSync('soffice', ['--version'], { encoding: 'utf8' }).status === 0;
let work: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  work = await temporaryDir('closebook-spreadsheet-');
});
afterAll(async () => {
  await work?.remove();
});

/** A hostile value: some text, a split character, perhaps spaces, a formula trigger and a payload. */
function hostile(fuzz: Fuzz): string {
  const lead = fuzz.chance(0.3) ? '' : fuzz.pick(['Acme', 'Nordic Oy', 'PO-77', fuzz.string().slice(0, 12)]);
  return `${lead}${fuzz.pick(SPLITS)}${' '.repeat(fuzz.int(0, 1))}${fuzz.pick(TRIGGERS)}${fuzz.pick(PAYLOADS)}${fuzz.chance(0.3) ? fuzz.pick(SPLITS) : ''}`;
}

/**
 * Opens each file in LibreOffice with the CSV import's separator set to `separator` (quotes honoured, UTF-8) and
 * saves it as flat ODS; returns each file's content. One LibreOffice run for all the files, in a profile of its own.
 */
function openInLibreOffice(files: string[], filter: string, outDir: string): Map<string, string> {
  execFileSync(
    'soffice',
    [
      `-env:UserInstallation=file://${join(work.path, 'lo-profile')}`,
      '--headless',
      `--infilter=${filter}`,
      '--convert-to',
      'fods',
      '--outdir',
      outDir,
      ...files,
    ],
    { stdio: 'ignore', timeout: 120_000 },
  );
  return new Map(files.map((file) => [file, join(outDir, `${basename(file).replace(/\.[^.]+$/, '')}.fods`)]));
}

/** Cells a flat ODS holds as formulas. */
function formulasIn(fods: string): string[] {
  return [...fods.matchAll(/table:formula="([^"]*)"/g)].map((match) => match[1] as string);
}

describe.skipIf(!soffice)('files opened in LibreOffice', () => {
  it('holds no formula in any CSV or copied text, whatever the separator', async () => {
    const fuzz = new Fuzz(FUZZ_SEED ^ 0x5eed);
    const values: string[] = [];
    const month = await ledgerWithMonth({
      reportId: REPORT,
      seed: 9,
      organizations: 12,
      linesPerOrganization: 4,
      change: (entries) => {
        for (const organization of entries.flatMap((entry) => entry.organizations)) {
          organization.name = hostile(fuzz);
          for (const service of organization.services) {
            service.serviceName = hostile(fuzz);
            for (const item of service.items) {
              item.poNumber = hostile(fuzz);
              item.itemName = hostile(fuzz);
              for (const product of item.products) {
                product.productName = hostile(fuzz);
                product.itemDetails = hostile(fuzz);
              }
            }
          }
        }
      },
    });
    try {
      const files: string[] = [];
      const lines = join(work.path, 'lines.csv');
      await exportReport(month.ledger, await new ReportLibrary(async () => month.ledger).meta(REPORT), 'csv', lines, {
        appVersion: 't',
        exportedAt: new Date(),
      });
      files.push(lines);
      const messages = Array.from({ length: 40 }, () => hostile(fuzz));
      values.push(...messages);
      const submission = {
        extraColumns: ['Customer'],
        rows: messages.map((message, index) => ({
          row: index + 2,
          subscriptionId: `sub-${index}`,
          isAddon: 'no',
          addonId: '',
          quantity: '1',
          consumptionId: '',
          extra: [hostile(fuzz)],
        })),
        failures: messages.map((message, index) => ({
          row: index + 2,
          errorMessage: message,
          subscriptionId: hostile(fuzz),
          isAddon: false,
          addonId: null,
          quantity: 1,
          consumptionId: null,
        })),
      } as unknown as Submission;
      const failed = join(work.path, 'failed.csv');
      await writeFile(failed, failedRowsCsv(submission));
      files.push(failed);
      // The clipboard's text as the renderer asks for it: rows of the view, pasted into a sheet as tab-separated text.
      const copied = join(work.path, 'copied-text.csv'); // a .txt would open in the word processor
      const rows = Array.from({ length: 40 }, () => [hostile(fuzz), hostile(fuzz), '-12.50', hostile(fuzz)]);
      await writeFile(copied, copiedTable(rows).text);
      files.push(copied);
      values.push(...rows.flat(), ...month.lines.map((line) => line.organization.name));

      const found: string[] = [];
      let cells = 0;
      for (const [name, code] of Object.entries(SEPARATORS)) {
        const outDir = join(work.path, name);
        for (const [file, converted] of openInLibreOffice(files, `CSV:${code},34,76,1`, outDir)) {
          const fods = await readFile(converted, 'utf8');
          cells += (fods.match(/<table:table-cell/g) ?? []).length;
          for (const formula of formulasIn(fods)) found.push(`${basename(file)} read with ${name}s: ${formula}`);
        }
      }
      saveFigures(inject('faultFiguresDir'), {
        boundary: '7 CSV and copied text in LibreOffice',
        inputs: values.length * Object.keys(SEPARATORS).length,
        crashes: 0,
        unclear: 0,
        damaged: found.length,
        notes: [
          `report CSV, failed-rows CSV and copied text, each opened with commas, semicolons and tabs: ${cells.toLocaleString('en')} cells read, ${found.length} formulas (damaged = a live formula)`,
        ],
        examples: found.slice(0, 8),
      });
      expect(found).toEqual([]);
    } finally {
      await month.close();
    }
  });

  it('opens every sheet of a workbook whole when names hold characters XML forbids', async () => {
    const fuzz = new Fuzz(FUZZ_SEED ^ 0x0c5);
    const month = await ledgerWithMonth({
      reportId: REPORT,
      seed: 11,
      organizations: 10,
      linesPerOrganization: 3,
      change: (entries) => {
        for (const organization of entries.flatMap((entry) => entry.organizations)) {
          organization.name = `Org ${fuzz.pick(NOT_XML)} ${organization.name}`;
          for (const service of organization.services) {
            service.serviceName = `${service.serviceName}${fuzz.pick(NOT_XML)}`;
            for (const product of service.items.flatMap((item) => item.products)) product.productName = `${fuzz.pick(NOT_XML)}${product.productName}`;
          }
        }
      },
    });
    try {
      const path = join(work.path, 'month.xlsx');
      await exportReport(month.ledger, await new ReportLibrary(async () => month.ledger).meta(REPORT), 'xlsx', path, {
        appVersion: 't',
        exportedAt: new Date(),
      });
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.readFile(path);
      const outDir = join(work.path, 'xlsx');
      const [[, converted] = ['', '']] = [...openInLibreOffice([path], 'Calc MS Excel 2007 XML', outDir)];
      const fods = await readFile(converted, 'utf8');
      const cut: string[] = [];
      let rows = 0;
      for (const sheet of workbook.worksheets) {
        const table =
          new RegExp(`<table:table table:name="${sheet.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"[^>]*>([\\s\\S]*?)</table:table>`).exec(fods)?.[1] ?? '';
        // The last row LibreOffice holds text in, against the last row written (LibreOffice cuts a sheet at a bad character).
        const written = sheet.actualRowCount;
        const read = [...table.matchAll(/<table:table-row[^>]*?(?:table:number-rows-repeated="(\d+)")?[^>]*>([\s\S]*?)<\/table:table-row>/g)].filter((row) =>
          /<text:p>/.test(row[2] as string),
        ).length;
        rows += written;
        if (read < written) cut.push(`${sheet.name}: ${read} of ${written} rows`);
      }
      saveFigures(inject('faultFiguresDir'), {
        boundary: '8 Workbooks in LibreOffice',
        inputs: month.lines.length,
        crashes: 0,
        unclear: 0,
        damaged: cut.length,
        notes: [
          `a workbook whose names hold ${NOT_XML.map((char) => `U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`).join(', ')}: ${workbook.worksheets.length} sheets, ${rows} rows read back by LibreOffice (damaged = a sheet cut short)`,
        ],
        examples: cut,
      });
      expect(cut).toEqual([]);
      expect(await readdir(outDir)).toEqual(['month.fods']);
    } finally {
      await month.close();
    }
  });
});
