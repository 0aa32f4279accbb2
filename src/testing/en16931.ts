import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';

/**
 * The official EN 16931 (CEN) and Peppol BIS Billing 3.0 rules, run on a UBL document by SaxonJS: the artefacts under
 * tests/fixtures/en16931 compiled to SEF, then each document checked in milliseconds. Compiling takes about 35 s of
 * CPU, so the compiled rules are kept in the repository (gzipped, 0.3 MB), in a folder keyed by what they were made
 * from: the artefacts and the compiler's version. Change either and the first test run compiles them anew into a new
 * folder, to be committed in place of the old one.
 */
const FIXTURES = join(process.cwd(), 'tests', 'fixtures', 'en16931');
const COMPILED = join(process.cwd(), 'tests', 'fixtures', 'en16931-compiled');
const require = createRequire(__filename);

export interface Finding {
  rules: 'CEN' | 'Peppol';
  id: string;
  flag: string;
  text: string;
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The compiled rules' folder name: a hash of the artefacts and of the compiler's version. */
function sourcesKey(): string {
  const hash = createHash('sha256').update(`xslt3 ${(require('xslt3/package.json') as { version: string }).version}\n`);
  for (const file of filesUnder(FIXTURES).sort()) hash.update(relative(FIXTURES, file)).update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

/** The compiled rules (gzipped SEF), made when the repository has none for these artefacts. */
function compiled(): { cen: string; peppol: string } {
  const folder = join(COMPILED, sourcesKey());
  const cen = join(folder, 'cen.sef.json.gz');
  const peppol = join(folder, 'peppol.sef.json.gz');
  if (existsSync(cen) && existsSync(peppol)) return { cen, peppol };
  const work = mkdtempSync(join(tmpdir(), 'closebook-en16931-'));
  try {
    const xslt3 = require.resolve('xslt3/xslt3.js');
    const run = (...args: string[]) => execFileSync(process.execPath, [xslt3, ...args], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
    run(`-xsl:${join(FIXTURES, 'cen', 'EN16931-UBL-validation.xslt')}`, `-export:${join(work, 'cen.json')}`, '-nogo');
    const peppolXsl = join(work, 'peppol.xsl');
    run(`-xsl:${join(FIXTURES, 'schxslt', 'pipeline-for-svrl.xsl')}`, `-s:${join(FIXTURES, 'peppol', 'PEPPOL-EN16931-UBL.sch')}`, `-o:${peppolXsl}`);
    run(`-xsl:${peppolXsl}`, `-export:${join(work, 'peppol.json')}`, '-nogo');
    mkdirSync(folder, { recursive: true });
    // Each written beside its place and moved in, so a run stopped half way leaves nothing a later one would trust.
    for (const [from, to] of [
      ['cen.json', cen],
      ['peppol.json', peppol],
    ] as const) {
      writeFileSync(`${to}.part`, gzipSync(readFileSync(join(work, from)), { level: 9 }));
      renameSync(`${to}.part`, to);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { cen, peppol };
}

interface SaxonJs {
  transform(options: Record<string, unknown>, mode: 'sync'): { principalResult: string };
}

let loaded: { CEN: unknown; Peppol: unknown } | undefined;

/**
 * The compiled rules, read once per process: read from their 10 MB of files at every document, a document took
 * about 600 ms to check, against 150–220 ms.
 */
function loadedRules(): { CEN: unknown; Peppol: unknown } {
  if (!loaded) {
    const rules = compiled();
    const read = (file: string) => JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as unknown;
    loaded = { CEN: read(rules.cen), Peppol: read(rules.peppol) };
  }
  return loaded;
}

/** Every failed assert and successful report of both rule sets on `xml` (SVRL), with its flag: fatal or warning. */
export function validateEn16931(xml: string): Finding[] {
  const saxon = require('saxon-js') as SaxonJs;
  const findings: Finding[] = [];
  for (const [name, sef] of Object.entries(loadedRules()) as ['CEN' | 'Peppol', unknown][]) {
    const svrl = saxon.transform({ stylesheetInternal: sef, sourceText: xml, destination: 'serialized' }, 'sync').principalResult;
    for (const match of svrl.matchAll(/<svrl:(?:failed-assert|successful-report)\b([^>]*)>([\s\S]*?)<\/svrl:(?:failed-assert|successful-report)>/g)) {
      const attributes = match[1] ?? '';
      const attribute = (key: string) => new RegExp(`\\b${key}="([^"]*)"`).exec(attributes)?.[1] ?? '';
      const text = /<svrl:text>([\s\S]*?)<\/svrl:text>/.exec(match[2] ?? '')?.[1]?.trim() ?? '';
      findings.push({ rules: name, id: attribute('id'), flag: attribute('flag') || 'fatal', text });
    }
  }
  return findings;
}
