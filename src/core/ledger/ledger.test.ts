import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { silentLogger } from '../ports/ports';
import { temporaryDir } from '@testing/test-support';
import { Ledger, sqlPath } from './ledger';

const cleanups = cleanupsAfterEach();

async function folder() {
  const dir = await temporaryDir();
  cleanups.push(() => dir.remove());
  return dir.path;
}

describe('the ledger', () => {
  it('keeps its folder and files owner-only, and money as DECIMAL', async () => {
    const dir = await folder();
    const ledger = await Ledger.open(dir, silentLogger);
    cleanups.push(() => ledger.close());
    expect((await stat(join(dir, 'ledger'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'ledger', 'closebook.duckdb'))).mode & 0o777).toBe(0o600);
    const types = await ledger.all(
      `SELECT DISTINCT data_type FROM information_schema.columns WHERE column_name IN ('cost', 'sales', 'quantity', 'stated_cost', 'cost_per_unit')`,
    );
    expect(types.every((row) => String(row.data_type).startsWith('DECIMAL'))).toBe(true);
  });

  it('rolls a failed write back whole', async () => {
    const ledger = await Ledger.open(await folder(), silentLogger);
    cleanups.push(() => ledger.close());
    await expect(
      ledger.write(async (transaction) => {
        await transaction.run(`INSERT INTO billing_entries VALUES ('r', 0, 'd', '', '')`);
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    expect(await ledger.all('SELECT * FROM billing_entries')).toEqual([]);
  });

  it('refuses a second process clearly, naming the one that holds it', async () => {
    const dir = await folder();
    const holder = await Ledger.open(dir, silentLogger);
    cleanups.push(() => holder.close());
    const script = `require('./src/core/ledger/ledger').Ledger.open(${JSON.stringify(dir)}, { info() {}, warn() {} }).then(() => process.exit(0), (e) => { process.stderr.write(e.code + ': ' + e.message); process.exit(3); });`;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { cwd: process.cwd() });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(3);
    expect(stderr).toMatch(new RegExp(`conflict: The ledger is in use by another Closebook process \\(PID ${process.pid}\\)`));
  });

  it('makes a consistent backup through the database that opens as a ledger of its own', async () => {
    const dir = await folder();
    const ledger = await Ledger.open(dir, silentLogger);
    cleanups.push(() => ledger.close());
    await ledger.write((transaction) => transaction.run(`INSERT INTO billing_entries VALUES ('r', 0, '2026-10-07', '', '')`));
    const target = join(await folder(), 'copy.duckdb');
    await ledger.backup(target);
    const copyDir = await folder();
    const { copyFile, mkdir } = await import('node:fs/promises');
    await mkdir(join(copyDir, 'ledger'));
    await copyFile(target, join(copyDir, 'ledger', 'closebook.duckdb'));
    const restored = await Ledger.open(copyDir, silentLogger);
    cleanups.push(() => restored.close());
    expect(await restored.all('SELECT billing_date FROM billing_entries')).toEqual([{ billing_date: '2026-10-07' }]);
  });

  it('reads and writes no file outside its own folder and the staging folder, whatever SQL reaches it', async () => {
    const dir = await folder();
    const ledger = await Ledger.open(dir, silentLogger);
    cleanups.push(() => ledger.close());
    const outside = join(await folder(), 'elsewhere.csv');
    const { writeFile, readdir } = await import('node:fs/promises');
    await writeFile(outside, 'a\n1\n');
    await expect(ledger.all('SELECT * FROM read_csv($1)', [outside])).rejects.toThrow(/disabled by configuration/);
    await expect(ledger.run(`COPY (SELECT 1 AS a) TO ${sqlPath(join(dir, 'escaped.csv'))}`)).rejects.toThrow(/disabled by configuration/);
    await expect(ledger.run('SET enable_external_access = true')).rejects.toThrow(/Cannot enable external access/);
    const staged = join(await ledger.outputs.folder(), 'allowed.csv');
    await ledger.run(`COPY (SELECT 1 AS a) TO ${sqlPath(staged)}`);
    expect(await readdir(dir)).not.toContain('escaped.csv');
  });
});
