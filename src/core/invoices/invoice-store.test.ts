import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useLedger } from '@testing/ledger-month';
import { storedInvoice as invoice, storedRun as run, taken } from '@testing/stored-invoices';
import { insertRun, runBody } from './invoice-record';
import { fileHashes, inForceEntry, lastRunForFiles, recordFiles, RunParts, runRows, runSummaries, storedRuns, summaryOf } from './invoice-store';

const ledger = useLedger();
const broker = { host: 'billing.example.com', resellerId: 'reseller-1' };
const period = { start: '2026-10-01', end: '2026-10-31' };

describe('the kept invoice runs', () => {
  it("take no invoice into a run's parts once its row is made (its hash is taken)", () => {
    const parts = new RunParts();
    const made = invoice(1, 0);
    parts.add(made);
    expect(parts.rows([inForceEntry(made)], run('00000000-0000-4000-8000-000000000009', [made], [made], '2026-11-09T10:00:00.000Z')).issued).toBe(1);
    expect(() => parts.add(invoice(2, 1))).toThrow(/added to a run's parts after its row was made/);
  });

  it('keep each run in parts, each invoice once, and read back every run with the invoices in force after it', async () => {
    const first = Array.from({ length: 250 }, (_, index) => invoice(index + 1, index));
    const october = run('00000000-0000-4000-8000-000000000001', first, first, '2026-11-09T10:00:00.000Z');
    // The follow-up: two invoices changed, each credited and issued anew; the other 248 stay in force.
    const credits = [invoice(251, 3, 2, 'credit-note'), invoice(252, 7, 2, 'credit-note')];
    const anew = [invoice(253, 3, 3), invoice(254, 7, 1)];
    const unchanged = first.filter((_, index) => index !== 3 && index !== 7);
    const followUp = run('00000000-0000-4000-8000-000000000002', [...credits, ...anew], [...unchanged, ...anew], '2026-11-12T10:00:00.000Z');
    await ledger().write(async (transaction) => {
      await insertRun(transaction, broker, period, october);
      await insertRun(transaction, broker, period, followUp);
      await insertRun(transaction, broker, period, october); // a copy kept twice is left as it is
    });
    expect(await storedRuns(ledger(), broker, period)).toEqual([october, followUp]);
    // Without their invoices, from the rows alone: each invoice in force by its number, key and substance hash.
    const summaries = await runSummaries(ledger(), broker, period);
    expect(summaries).toEqual([summaryOf(october), summaryOf(followUp)]);
    expect(summaries[1]?.issuedCount).toBe(4);
    expect(summaries[1]?.inForce.map((entry) => entry.number)).toEqual([...unchanged, ...anew].map((made) => made.number));
    expect(new Set(summaries[1]?.inForce.map((entry) => entry.key)).size).toBe(250);
    // A changed invoice has another substance; its number and dates are not its substance.
    const [changed, renumbered] = [
      { ...first[0]!, netTotal: '0.01' },
      { ...first[0]!, number: 'X-1', invoiceDate: '2027-01-01', dueDate: '2027-02-01' },
    ];
    expect(summaryOf({ ...october, inForce: [changed] }).inForce[0]?.substance).not.toBe(summaries[0]?.inForce[0]?.substance);
    expect(summaryOf({ ...october, inForce: [renumbered] }).inForce[0]?.substance).toBe(summaries[0]?.inForce[0]?.substance);
    const parts = await ledger().all('SELECT run_id, count(*)::INTEGER AS parts FROM invoice_run_invoices GROUP BY run_id ORDER BY run_id');
    expect(parts).toEqual([
      { run_id: october.runId, parts: 3 },
      { run_id: followUp.runId, parts: 1 },
    ]);
    // The run's row names the invoices in force by number; its hash is of the row and its parts.
    const [row] = await ledger().all('SELECT run, run_hash FROM invoice_runs WHERE run_id = $1', [followUp.runId]);
    expect(JSON.parse(String(row?.run)).inForce).toEqual([...unchanged, ...anew].map((made) => made.number));
    expect(row?.run_hash).toBe(runRows(followUp).hash);
    // The first run's hash, made here from its row and its parts' JSON (the arrays' text), and the parts' own text.
    const [kept] = await ledger().all('SELECT run, run_hash FROM invoice_runs WHERE run_id = $1', [october.runId]);
    const texts = [first.slice(0, 100), first.slice(100, 200), first.slice(200)].map((part) => JSON.stringify(part));
    expect(kept?.run_hash).toBe(createHash('sha256').update(String(kept?.run)).update(texts.join('')).digest('hex'));
    const stored = await ledger().all('SELECT invoices_gzip FROM invoice_run_invoices WHERE run_id = $1 ORDER BY part', [october.runId]);
    expect(stored.map((part) => gunzipSync(Buffer.from(String(part.invoices_gzip), 'base64')).toString('utf8'))).toEqual(texts);
    // A run whose row names its invoices by number alone (as kept before the keys and hashes were): read whole.
    const { inForce, dateFormat, approved, seller } = JSON.parse(String(row?.run)) as Record<string, unknown>;
    await ledger().run('UPDATE invoice_runs SET run = $1 WHERE run_id = $2', [JSON.stringify({ inForce, dateFormat, approved, seller }), followUp.runId]);
    expect(await runSummaries(ledger(), broker, period)).toEqual([summaryOf(october), summaryOf(followUp)]);
  });

  it('reads a run kept whole, as the ledger kept runs before, and a later run naming its invoices', async () => {
    const november = { start: '2026-11-01', end: '2026-11-30' };
    const first = [invoice(1, 1), invoice(2, 2)];
    const before = run('00000000-0000-4000-8000-000000000003', first, first, '2026-11-09T10:00:00.000Z');
    await ledger().run('INSERT INTO invoice_runs VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)', [
      before.runId,
      broker.host,
      broker.resellerId,
      november.start,
      november.end,
      before.reportId,
      before.contentHash,
      runBody(before),
      'hash',
      before.firstNumber,
      before.lastNumber,
      before.exportedAt,
      before.exportedBy,
    ]);
    const later = run('00000000-0000-4000-8000-000000000004', [invoice(3, 3)], [first[1]!, invoice(3, 3)], '2026-11-10T10:00:00.000Z');
    await ledger().write((transaction) => insertRun(transaction, broker, november, later));
    expect(await storedRuns(ledger(), broker, november)).toEqual([before, later]);
    // Their summaries are made from the runs read whole.
    expect(await runSummaries(ledger(), broker, november)).toEqual([before, later].map(summaryOf));
  });

  it("reads a run to write again a part at a time: any range of its invoices, only the month's last run, a part missing said", async () => {
    const december = { start: '2026-12-01', end: '2026-12-31' }; // a month of its own in this file's ledger
    const issued = Array.from({ length: 250 }, (_, index) => invoice(index + 1, index));
    const october = run('00000000-0000-4000-8000-000000000006', issued, issued, '2026-11-09T10:00:00.000Z');
    const followUp = run('00000000-0000-4000-8000-000000000007', [invoice(251, 3, 3)], issued, '2026-11-12T10:00:00.000Z');
    await ledger().write((transaction) => insertRun(transaction, broker, december, october));
    const again = await lastRunForFiles(ledger(), broker, december, october.runId);
    const { issued: _issued, inForce: _inForce, ...header } = october;
    expect(again).toMatchObject(header);
    expect(again?.issued.count).toBe(250);
    // Within a part, across parts, to the end and past it, and nothing.
    for (const [from, to] of [
      [0, 250],
      [0, 1],
      [99, 101],
      [100, 200],
      [150, 260],
      [249, 250],
      [250, 250],
      [30, 30],
    ] as const)
      expect(await taken(again?.issued.range(from, to) ?? [])).toEqual(issued.slice(from, to));
    // Another run exported after it: not the one to write again.
    await ledger().write((transaction) => insertRun(transaction, broker, december, followUp));
    expect(await lastRunForFiles(ledger(), broker, december, october.runId)).toBeNull();
    expect(await taken((await lastRunForFiles(ledger(), broker, december, followUp.runId))?.issued.range(0, 5) ?? [])).toEqual([invoice(251, 3, 3)]);
    // A part gone from the ledger: said when the run is read (its count no longer fits) or when the part is taken.
    await ledger().run('DELETE FROM invoice_runs WHERE run_id = $1', [followUp.runId]);
    const whole = await lastRunForFiles(ledger(), broker, december, october.runId);
    await ledger().run('DELETE FROM invoice_run_invoices WHERE run_id = $1 AND part = 2', [october.runId]);
    await expect(lastRunForFiles(ledger(), broker, december, october.runId)).rejects.toThrow(/is not whole in this workstation's ledger/);
    await expect(taken(whole?.issued.range(150, 250) ?? [])).rejects.toThrow(/is not whole in this workstation's ledger/);
    // A part that holds another's invoices (the first part's, 100 where the last holds 50).
    const [part] = await ledger().all('SELECT invoices_gzip FROM invoice_run_invoices WHERE run_id = $1 AND part = 0', [october.runId]);
    await ledger().run('INSERT INTO invoice_run_invoices VALUES ($1, 2, $2)', [october.runId, String(part?.invoices_gzip)]);
    const damaged = await lastRunForFiles(ledger(), broker, december, october.runId);
    expect(await taken(damaged?.issued.range(0, 200) ?? [])).toHaveLength(200);
    await expect(taken(damaged?.issued.range(0, 250) ?? [])).rejects.toThrow(/is not whole in this workstation's ledger/);
  });

  it("records the files written from a run, by format, in one go: each file's hash, a file written again replacing its record", async () => {
    const runId = '00000000-0000-4000-8000-000000000005';
    const files = Array.from({ length: 10_000 }, (_, index) => ({ name: `INV-${index + 1}.xml`, sha256: String(index).padStart(64, '0') }));
    await recordFiles(ledger(), runId, 'ubl', files, '2026-11-09T10:00:00.000Z');
    await recordFiles(ledger(), runId, 'ubl', [{ name: 'INV-1.xml', sha256: 'f'.repeat(64) }], '2026-11-10T10:00:00.000Z');
    await recordFiles(ledger(), runId, 'xero', [], '2026-11-10T10:00:00.000Z');
    const kept = await fileHashes(ledger(), runId, 'ubl');
    expect(kept.size).toBe(10_000);
    expect([kept.get('INV-1.xml'), kept.get('INV-10000.xml')]).toEqual(['f'.repeat(64), '9999'.padStart(64, '0')]);
    expect((await fileHashes(ledger(), runId, 'xero')).size).toBe(0);
  });
});
