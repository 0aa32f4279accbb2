import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService, type Service } from '../service';
import { REMOTE, remoteFetch, startTwin, testPorts, type Twin } from '@testing/test-support';

/**
 * The exports of a twin's month, byte for byte: the CSV, the Parquet file and every part of the workbook (the zip's
 * own timestamps aside), against the digests in export-golden.json. A refactoring must leave them all as they are;
 * a change that means to change an export updates the file (CLOSEBOOK_UPDATE_GOLDEN=1) and says why in its commit.
 * Fixed: the twin's seed, the clock, the time zone and the locale.
 */

const GOLDEN = join(__dirname, 'export-golden.json');
const UPDATE = process.env.CLOSEBOOK_UPDATE_GOLDEN === '1';

let twin: Twin;
let service: Service;
let dataDir = '';
let cleanup: () => Promise<void>;
let october = '';
const zone = process.env.TZ;

beforeAll(async () => {
  process.env.TZ = 'Europe/Stockholm';
  twin = await startTwin({ organizations: 40, linesPerOrganization: 6, seed: 2026, reportReadyAfterMs: 0, reportReadyAfterPolls: 0 });
  // Presented as a remote service: the twin's loopback port differs at every run, and the workbook names the service.
  const env = await testPorts({ fetch: remoteFetch(twin) });
  cleanup = env.cleanup;
  dataDir = env.ports.dataDir;
  service = createService(env.ports);
  const c = twin.credentials;
  const profile = await service.handlers['profiles:save']({
    fields: { name: 'Golden', baseUrl: REMOTE, clientId: c.clientId, username: c.username, resellerId: c.resellerId, sellerId: c.sellerId },
    apiSecret: c.apiSecret,
    password: c.password,
  });
  for (const period of [
    { startDate: '2026-09-01', endDate: '2026-09-30' },
    { startDate: '2026-10-01', endDate: '2026-10-31' },
  ]) {
    const job = await service.handlers['reports:request']({ profileId: profile.id, period });
    const [done] = await service.reports.waitFor([job.id]);
    october = done?.reportId ?? '';
  }
}, 60_000);

afterAll(async () => {
  await service?.dispose();
  await twin?.close();
  await cleanup?.();
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

const digest = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex').slice(0, 32);

/** Every output's digest: `October.csv`, `October.parquet`, and `October.xlsx:<part>` for each part of the workbook. */
async function digests(): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const format of ['csv', 'parquet', 'xlsx'] as const) {
    const path = join(dataDir, `October.${format}`);
    await service.reports.exportReport(october, path);
    const bytes = await readFile(path);
    if (format !== 'xlsx') found[`October.${format}`] = digest(bytes);
    else {
      const zip = await JSZip.loadAsync(bytes);
      for (const name of Object.keys(zip.files).sort()) found[`October.xlsx:${name}`] = digest(await zip.files[name]!.async('uint8array'));
    }
  }
  return found;
}

/** Each page of a PDF with the smallest height of a word on it (pt), as pdftotext -bbox measures them. */
function wordHeightsByPage(pdf: string): number[] {
  const html = execFileSync('pdftotext', ['-bbox', pdf, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return html
    .split('<page ')
    .slice(1)
    .map((page) =>
      Math.min(...[...page.matchAll(/<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">/g)].map((word) => Number(word[2]) - Number(word[1]))),
    );
}

describe('exports, byte for byte', () => {
  it('are as they were: the CSV, the Parquet file and each part of the workbook of a twin month (with its Changes and Checks)', async () => {
    const now = await digests();
    if (UPDATE) await writeFile(GOLDEN, `${JSON.stringify(now, null, 2)}\n`);
    expect(now).toEqual(JSON.parse(await readFile(GOLDEN, 'utf8')) as Record<string, string>);
    expect(Object.keys(now)).toContain('October.xlsx:xl/worksheets/sheet1.xml');
  }, 60_000);

  it('print legibly: every sheet, rendered by LibreOffice, has its text at 8 pt or more; a wide sheet runs across pages', async () => {
    const path = join(dataDir, 'Printed.xlsx');
    await service.reports.exportReport(october, path);
    execFileSync('soffice', [`-env:UserInstallation=file://${join(dataDir, 'lo-profile')}`, '--headless', '--convert-to', 'pdf', '--outdir', dataDir, path], {
      stdio: 'ignore',
      timeout: 120_000,
    });
    const pages = wordHeightsByPage(join(dataDir, 'Printed.pdf'));
    // A word's box is a little taller than its font: 8 pt text stands about 9 pt high.
    expect(pages.filter((smallest) => smallest < 9).length, `pages with text under 8 pt, of ${pages.length}: ${pages.map((h) => h.toFixed(1)).join(' ')}`).toBe(
      0,
    );
    // More pages than sheets: the wide ones run across pages (their header row and first column repeated on each).
    const sheets = Object.keys((await JSZip.loadAsync(await readFile(path))).files).filter((name) => /^xl\/worksheets\/sheet\d+\.xml$/.test(name));
    expect(pages.length).toBeGreaterThan(sheets.length);
  }, 180_000);
});
