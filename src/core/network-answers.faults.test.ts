import { describe, expect, inject, it } from 'vitest';
import type { ChannelName } from '@shared/contract';
import { AppErrorShape } from '@shared/errors';
import { FUZZ_SEED, Fuzz, preview, saveFigures, unclearReason } from '@testing/fuzz';
import { protectedState, type ServiceFixture, serviceFixtureForFile } from '@testing/service-fixture';
import { dispatch } from './runtime/dispatch';

/**
 * The service's answers under faults, injected by the twin: error statuses (once, or past the retries), dropped
 * connections before and after the service acted, slow and malformed answers, unknown report statuses — on the
 * token, organizations, report request and polls, and consumption submit and polls. Each request ends in a clear
 * AppError or success; report jobs and consumption batches end in a state that says what happened; a batch cut off
 * after its POST left is "outcome unknown", never "error" (which could be sent again without asking).
 */

const ANSWER_WITHIN_MS = 30_000;

type FaultSpec = Parameters<ServiceFixture['twin']['faults']['add']>[0];

const { fixture, rejections } = serviceFixtureForFile();

/** The faults tried on every call: statuses once and past the retries, drops, slowness, a broken body. */
function faultsFor(fuzz: Fuzz): { fault: FaultSpec; what: string }[] {
  const statuses = [400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504];
  return [
    ...statuses.flatMap((status) => [
      { fault: { kind: 'status' as const, status }, what: `HTTP ${status} once` },
      { fault: { kind: 'status' as const, status, times: 12 }, what: `HTTP ${status} every time` },
    ]),
    { fault: { kind: 'status', status: 429, retryAfterSeconds: 99_999, times: 12 }, what: 'HTTP 429 asking for a day of patience' },
    { fault: { kind: 'status', status: 503, retryAfterSeconds: 0, times: 2 }, what: 'HTTP 503 twice, Retry-After 0' },
    { fault: { kind: 'drop' }, what: 'connection dropped before the service acted' },
    { fault: { kind: 'drop', times: 12 }, what: 'connection dropped every time' },
    { fault: { kind: 'drop-after-processing' }, what: 'connection dropped after the service acted' },
    { fault: { kind: 'slow', delayMs: fuzz.int(50, 400) }, what: 'a slow answer' },
    { fault: { kind: 'malformed' }, what: 'a body that is not JSON' },
    { fault: { kind: 'malformed', times: 12 }, what: 'a body that is not JSON, every time' },
  ];
}

describe('network answers: the service misbehaving', () => {
  it('answers every fault on every call clearly, and never records a batch that may have arrived as an error', async () => {
    const fuzz = new Fuzz(FUZZ_SEED ^ 0x7e7);
    const { twin, profile } = fixture();
    const service = fixture().service;
    const before = await protectedState(fixture(), service);
    const crashes: string[] = [];
    const unclear: string[] = [];
    const damaged: string[] = [];
    const outcomes = new Map<string, number>();
    const count = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    let inputs = 0;
    let batch = 0;
    const started = performance.now();

    /** One call under one fault: the reply must be a value, and an error a clear one. */
    async function call(channel: ChannelName, input: unknown, label: string): Promise<{ ok: true; data: unknown } | { ok: false; code: string } | null> {
      inputs += 1;
      let timer: NodeJS.Timeout | undefined;
      try {
        const reply = await Promise.race([
          dispatch(service, channel, input, fixture().ports.log),
          new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_WITHIN_MS / 1000} s`)), ANSWER_WITHIN_MS))),
        ]);
        if (reply.ok) return { ok: true, data: reply.data };
        const error = AppErrorShape.parse(reply.error);
        const reason = unclearReason(error.message, error.code);
        if (reason) unclear.push(`${label}: ${reason}: [${error.code}] ${preview(error.message, 300)}`);
        return { ok: false, code: error.code };
      } catch (error) {
        crashes.push(`${label}: ${error instanceof Error ? error.message : String(error)}`);
        return null;
      } finally {
        clearTimeout(timer);
      }
    }

    for (const { fault, what } of faultsFor(fuzz)) {
      // The token and the organization list: a connection test signs in again each time.
      for (const [channel, path, method] of [
        ['profiles:test', 'connect/token', 'POST'],
        ['organizations:list', 'Organizations', 'GET'],
      ] as const) {
        twin.faults.clear();
        twin.faults.add({ ...fault, path, method });
        const reply = await call(channel, { profileId: profile.id }, `${channel}, ${what}`);
        if (reply) count(reply.ok ? 'answered' : `refused (${reply.code})`);
      }

      // A report request: the POST, then the polls.
      for (const method of ['POST', 'GET'] as const) {
        twin.faults.clear();
        twin.faults.add({ ...fault, path: 'MonthlyBilling', method });
        const label = `reports:request, ${method} ${what}`;
        const reply = await call('reports:request', { profileId: profile.id, period: { startDate: '2026-06-01', endDate: '2026-06-30' } }, label);
        if (reply?.ok) {
          const jobId = (reply.data as { id: string }).id;
          const [job] = await service.reports.waitFor([jobId]);
          count(`report job ${job?.state}`);
          if (job?.state !== 'done' && job?.state !== 'failed') damaged.push(`${label}: the job ended ${job?.state}`);
          if (job?.state === 'failed') {
            const reason = unclearReason(job.message ?? '', undefined);
            if (reason) unclear.push(`${label}: the failed job says: ${reason}: ${preview(job.message, 300)}`);
            await call('reports:cancel', { jobId }, `${label}, cancelling the failed job`);
          }
        } else if (reply) count(`refused (${reply.code})`);
      }

      // A consumption batch: the POST, then the status polls. Each batch differs, so no repeat check stops it.
      for (const method of ['POST', 'GET'] as const) {
        twin.faults.clear();
        twin.faults.add({ ...fault, path: 'bulkconsumptions', method });
        batch += 1;
        const rows = fixture().consumptionRows.map((row) => ({ ...row, quantity: `${batch}.${row.row}` }));
        const label = `consumption:submit, ${method} ${what}`;
        const reply = await call('consumption:submit', { profileId: profile.id, fileName: `batch-${batch}.csv`, rows }, label);
        if (!reply) continue;
        if (!reply.ok) {
          count(`refused (${reply.code})`);
          continue;
        }
        const submissionId = (reply.data as { id: string }).id;
        await service.consumption.waitFor([submissionId]);
        const submission = await call('consumption:get', { submissionId }, `${label}, reading it back`);
        if (!submission?.ok) continue;
        const { state, message } = submission.data as { state: string; message: string | null };
        count(`batch ${state}`);
        const cutOff = method === 'POST' && (fault.kind === 'drop' || fault.kind === 'drop-after-processing' || fault.kind === 'malformed');
        if (cutOff && (state === 'error' || state === 'sending'))
          damaged.push(`${label}: saved as "${state}" though it may have arrived (it could be sent again without asking)`);
        if (message) {
          const reason = unclearReason(message, undefined);
          if (reason) unclear.push(`${label}: the batch says: ${reason}: ${preview(message, 300)}`);
        }
        if (state === 'outcome-unknown') {
          // The same batch again, without a yes: it must ask first.
          const again = await call(
            'consumption:submit',
            { profileId: profile.id, fileName: `batch-${batch} again.csv`, rows },
            `${label}, sent again without confirming`,
          );
          if (again?.ok) damaged.push(`${label}: the same batch was sent again without asking`);
        }
      }
    }
    // Unknown report statuses, as text and numbers.
    for (const status of [7, -1, 1e9, 0.5, '5 ', 'five', '', 'null', '9'.repeat(400)]) {
      twin.faults.clear();
      twin.faults.add({ kind: 'report-status', status, times: 3 });
      const label = `report poll answering status ${preview(status, 40)}`;
      const reply = await call('reports:request', { profileId: profile.id, period: { startDate: '2026-05-01', endDate: '2026-05-31' } }, label);
      if (!reply?.ok) continue;
      const [job] = await service.reports.waitFor([(reply.data as { id: string }).id]);
      count(`report job ${job?.state}`);
      if (job?.state === 'failed') {
        const reason = unclearReason(job.message ?? '', undefined);
        if (reason) unclear.push(`${label}: ${reason}: ${preview(job.message, 300)}`);
        await call('reports:cancel', { jobId: job.id }, `${label}, cancelling`);
      }
    }
    twin.faults.clear();
    const seconds = (performance.now() - started) / 1000;

    // Nothing saved before was lost, and every saved file still reads.
    const after = await protectedState(fixture(), service);
    for (const key of Object.keys(before) as (keyof typeof before)[]) {
      if (JSON.stringify(after[key]) !== JSON.stringify(before[key])) damaged.push(`the protected ${key} changed`);
    }
    for (const channel of ['profiles:list', 'reports:jobs', 'reports:list', 'consumption:history'] as const) {
      const reply = await dispatch(service, channel, {}, fixture().ports.log);
      if (!reply.ok) damaged.push(`${channel} no longer reads: ${reply.error.message}`);
    }

    saveFigures(inject('faultFiguresDir'), {
      boundary: '5 Network answers',
      inputs,
      crashes: crashes.length + rejections.length,
      unclear: unclear.length,
      damaged: damaged.length,
      notes: [
        `${faultsFor(fuzz).length} faults × token, organizations, report POST and polls, consumption POST and polls, plus 9 unknown report statuses; ${seconds.toFixed(1)} s`,
        [...outcomes].map(([outcome, times]) => `${times} ${outcome}`).join(', '),
        'a service silent past the 30 s timeout is left to the service-client unit tests (30 s a case)',
      ],
      examples: [
        ...crashes.slice(0, 8).map((what) => `crash: ${what}`),
        ...rejections.slice(0, 4).map((reason) => `unhandled rejection or exception: ${reason instanceof Error ? reason.message : preview(reason)}`),
        ...unclear.slice(0, 8).map((what) => `unclear: ${what}`),
        ...damaged.slice(0, 8).map((what) => `damage: ${what}`),
      ],
    });
    expect(crashes).toEqual([]);
    expect(rejections).toEqual([]);
    expect(damaged).toEqual([]);
    expect(unclear).toEqual([]);
  });
});
