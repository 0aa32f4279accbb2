import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createRequire } from 'node:module';

/**
 * The official EN 16931 (CEN) and Peppol BIS Billing 3.0 rules, run on a UBL document by SaxonJS: the artefacts under
 * tests/fixtures/en16931 compiled to SEF once per machine (about 35 s), then each document checked in milliseconds.
 */
const FIXTURES = join(process.cwd(), 'tests', 'fixtures', 'en16931');
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

/** The compiled rules, made once per version of the artefacts (a folder keyed by their hash). */
function compiled(): { cen: string; peppol: string } {
  const hash = createHash('sha256');
  for (const file of filesUnder(FIXTURES).sort()) hash.update(relative(FIXTURES, file)).update(readFileSync(file));
  const cache = join(process.cwd(), 'node_modules', '.cache', 'closebook-en16931', hash.digest('hex').slice(0, 16));
  const cen = join(cache, 'cen.sef.json');
  const peppol = join(cache, 'peppol.sef.json');
  if (existsSync(cen) && existsSync(peppol)) return { cen, peppol };
  mkdirSync(cache, { recursive: true });
  const xslt3 = require.resolve('xslt3/xslt3.js');
  const run = (...args: string[]) => execFileSync(process.execPath, [xslt3, ...args], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
  // Each made beside its place and moved in, so a run stopped half way leaves nothing a later one would trust.
  run(`-xsl:${join(FIXTURES, 'cen', 'EN16931-UBL-validation.xslt')}`, `-export:${cen}.part`, '-nogo');
  renameSync(`${cen}.part`, cen);
  const peppolXsl = join(cache, 'peppol.xsl');
  run(`-xsl:${join(FIXTURES, 'schxslt', 'pipeline-for-svrl.xsl')}`, `-s:${join(FIXTURES, 'peppol', 'PEPPOL-EN16931-UBL.sch')}`, `-o:${peppolXsl}`);
  run(`-xsl:${peppolXsl}`, `-export:${peppol}.part`, '-nogo');
  renameSync(`${peppol}.part`, peppol);
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
    loaded = { CEN: JSON.parse(readFileSync(rules.cen, 'utf8')), Peppol: JSON.parse(readFileSync(rules.peppol, 'utf8')) };
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
