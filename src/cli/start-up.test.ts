import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI } from '@testing/simulator';

const folder = mkdtempSync(join(tmpdir(), 'closebook-start-up-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

// Preloaded into the CLI's process: at exit, every module it loaded with require (the compiled CLI loads its packages so).
const reporter = join(folder, 'loaded.cjs');
writeFileSync(reporter, `process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify(Object.keys(require.cache)) + '\\n'));\n`);

/** Runs the compiled CLI; its exit code, output, and the packages (node_modules folders) it loaded. */
function run(args: string[]): { status: number | null; stdout: string; stderr: string; packages: string[] } {
  const result = spawnSync(process.execPath, ['--require', reporter, CLI[1], ...args], { encoding: 'utf8', timeout: 60_000 });
  const loaded = JSON.parse(/\nLOADED (.*)\n/.exec(result.stderr)?.[1] ?? 'null') as string[] | null;
  if (!loaded) throw new Error(`No list of loaded modules: ${result.stderr}`);
  const packages = new Set(loaded.flatMap((path) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? []));
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.replace(/\nLOADED .*\n/, ''), packages: [...packages].sort() };
}

// A command that does nothing starts in about the time Node takes to start (the benchmark times it): it loads no
// package at all — not the core's database, workbook or keychain code, not even the schemas.
describe('the compiled CLI starts without loading what the command does not use', () => {
  it('help loads no package', () => {
    const help = run(['help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Closebook command line');
    expect(help.packages).toEqual([]);
  });

  it('a mistyped command says so in one line, exits 1, and loads no package', () => {
    const typo = run(['repots']);
    expect(typo.status).toBe(1);
    expect(typo.stderr.trim()).toBe('closebook: unknown command "repots". Run: npm run cli -- help');
    expect(typo.packages).toEqual([]);
  });

  it('a command that reads the ledger loads DuckDB (so the list above is the real one), and no workbook, PDF or proxy code it does not use', () => {
    const list = run(['reports', 'list', '--data-dir', join(folder, 'data')]);
    expect(list.status).toBe(0);
    expect(list.packages).toContain('@duckdb/node-api');
    // Each of these costs every command 130–700 ms to load: they load when a workbook, a PDF or a proxied request is made.
    for (const unused of ['exceljs', 'pdfkit', 'undici', 'pg']) expect(list.packages).not.toContain(unused);
    const validate = run(['consumption', 'validate', '--file', join(folder, 'missing.xlsx'), '--data-dir', join(folder, 'data')]);
    expect(validate.status).toBe(1); // no such file: said in words, and still no workbook written
    expect(validate.packages).not.toContain('exceljs');
  });
});
