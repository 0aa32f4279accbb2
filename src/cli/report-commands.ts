import { resolve } from 'node:path';
import { AppError } from '@shared/errors';
import { ReportPeriod, type ReportPeriod as Period } from '@shared/schemas/billing-report';
import { describeReportJob, formatDuration } from '@shared/report-progress';
import type { ReportJob } from '@shared/schemas/saved-report';
import { SERVICE_POLL_FLOOR_MS } from '@core';
import { CONNECTION_OPTIONS, type CliContext, EXIT, parse, resolveProfileId, UsageError, withContext } from './context';
import { errorMessage } from '@shared/error-message';
import { counted } from '@shared/counted';
import { endedBefore, periodNotOverText } from '@shared/model/period-end';

/** One line per change of a request, in the app's words: "report 2026-10-01…2026-10-31: Downloading 38 MB (2 min 05 s)". */
function progressLine(job: ReportJob): string {
  const message = job.message ? ` — ${job.message}` : '';
  const elapsed = Date.parse(job.updatedAt) - Date.parse(job.startedAt);
  return `report ${job.period.startDate}…${job.period.endDate}: ${describeReportJob(job, Date.parse(job.updatedAt))} (${formatDuration(elapsed)})${message}`;
}

/** Runs jobs to their end, printing progress; Ctrl-C stops polling but leaves them saved for `report resume`. */
async function waitForJobs(context: CliContext, jobIds: string[], out: string | undefined): Promise<number> {
  const { service } = context;
  const unsubscribe = service.events.subscribe((event, payload) => {
    if (event === 'report:progress' && jobIds.includes((payload as ReportJob).id)) process.stderr.write(`${progressLine(payload as ReportJob)}\n`);
  });
  let interrupted = false;
  const onInterrupt = () => {
    interrupted = true;
    void service.dispose();
  };
  process.once('SIGINT', onInterrupt);
  let outcomes: (ReportJob | undefined)[];
  try {
    outcomes = await service.reports.waitFor(jobIds);
  } finally {
    process.removeListener('SIGINT', onInterrupt);
    unsubscribe();
  }
  if (interrupted) {
    process.stderr.write('Stopped. The request is saved: run `report resume` (with the same profile) to carry on.\n');
    return 130;
  }
  let code: number = EXIT.ok;
  for (const outcome of outcomes) {
    if (outcome?.state === 'done' && outcome.reportId) {
      process.stdout.write(`${outcome.reportId}\n`);
      await shareWithTeam(service, outcome.reportId);
      if (out) {
        const summary = await service.reports.exportReport(outcome.reportId, resolve(out));
        process.stderr.write(`Wrote ${summary.lines} billing lines to ${resolve(out)}.\n`);
      }
    } else {
      process.stderr.write(`closebook: ${outcome?.message ?? 'the report request did not finish'}\n`);
      code = EXIT.service;
    }
  }
  return code;
}

/** With a team ledger connected, a month fetched is shared at once; a failure leaves the month saved here and says how to share it. */
async function shareWithTeam(service: CliContext['service'], reportId: string): Promise<void> {
  if (!(await service.team.address().catch(() => null))) return;
  try {
    const shared = await service.team.share(reportId);
    process.stderr.write(shared.shared ? `Shared ${counted(shared.lines, 'line')} with the team ledger.\n` : 'The team ledger has these lines already.\n');
  } catch (error) {
    process.stderr.write(`The month is saved here, but not shared with the team ledger yet (${errorMessage(error)}). Share it with: team share ${reportId}\n`);
  }
}

function seconds(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new UsageError('--poll-interval must be a number of seconds greater than 0');
  return parsed;
}

/** `report fetch --from … --to … [--out F.xlsx] [--poll-interval S]` and `report resume`. */
export async function reportCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values } = parse(rest, {
    ...CONNECTION_OPTIONS,
    from: { type: 'string' },
    to: { type: 'string' },
    out: { type: 'string' },
    'poll-interval': { type: 'string' },
  });
  if (action !== 'fetch' && action !== 'resume')
    throw new UsageError('Usage: report fetch --from YYYY-MM-DD --to YYYY-MM-DD [--out FILE.xlsx] [--poll-interval SECONDS] | report resume');
  let period: Period | undefined;
  if (action === 'fetch') {
    const parsed = ReportPeriod.safeParse({ startDate: values.from, endDate: values.to });
    if (!parsed.success)
      throw new UsageError(parsed.error.issues.map((issue) => `--${issue.path[0] === 'startDate' ? 'from' : 'to'} ${issue.message}`).join('; '));
    period = parsed.data;
  }
  if (values.out && !/\.(xlsx|parquet|csv)$/i.test(values.out)) throw new UsageError('--out must name an .xlsx, .parquet or .csv file');
  const pollSeconds = seconds(values['poll-interval']);
  return withContext(
    values['data-dir'],
    async (context) => {
      const { service } = context;
      const profileId = await resolveProfileId(context, values);
      if (pollSeconds !== undefined && pollSeconds * 1000 < (await service.reports.pollIntervalFor(profileId))) {
        process.stderr.write(`Polling every ${SERVICE_POLL_FLOOR_MS / 1000} s: the service asks clients to wait at least that long between polls.\n`);
      }
      if (period) {
        if (!endedBefore(period.endDate, new Date())) process.stderr.write(`${periodNotOverText(period.endDate)}\n`);
        const job = await context.call('reports:request', { profileId, period });
        return waitForJobs(context, [job.id], values.out);
      }
      const mine = await service.reports.unfinished(profileId);
      if (mine.length === 0) {
        process.stderr.write('No unfinished report requests for this profile.\n');
        return EXIT.ok;
      }
      for (const job of mine) await context.call('reports:retry', { jobId: job.id });
      return waitForJobs(
        context,
        mine.map((job) => job.id),
        values.out,
      );
    },
    pollSeconds === undefined ? undefined : { reportMs: pollSeconds * 1000 },
  );
}

/**
 * `reports list [--json]`, `reports export ID --out F.xlsx|.parquet|.csv [--group NAME]…`, `reports export ID --per-group
 * --out-dir DIR`, `reports delete ID`: all offline.
 */
export async function reportsCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parse(rest, {
    out: { type: 'string' },
    'out-dir': { type: 'string' },
    'per-group': { type: 'boolean', default: false },
    group: { type: 'string' },
    organization: { type: 'string' },
    service: { type: 'string' },
    currency: { type: 'string' },
    text: { type: 'string' },
  });
  return withContext(values['data-dir'], async (context) => {
    const { reports } = context.service;
    if (action === 'list') {
      const listings = await context.call('reports:list', {});
      if (values.json) process.stdout.write(`${JSON.stringify(listings, null, 2)}\n`);
      for (const listing of values.json ? [] : listings) {
        if (listing.state === 'ok') {
          const { meta } = listing;
          const totals = meta.totals.map((total) => `${total.currency} ${total.sales}`).join(', ');
          const partial = endedBefore(meta.period.endDate, meta.fetchedAt) ? '' : ' (partial: fetched before the period ended)';
          process.stdout.write(
            `${meta.id}  ${meta.name}  ${meta.period.startDate}…${meta.period.endDate}${partial}  ${meta.profileName}  ${counted(meta.counts.lines, 'line')}  ${totals}\n`,
          );
        } else process.stdout.write(`${listing.id}  DAMAGED  ${listing.reason}\n`);
      }
      if (!values.json && listings.length === 0) process.stderr.write(`No saved reports in ${context.dataDir}.\n`);
      return EXIT.ok;
    }
    if (action === 'import') {
      const file = positionals[0];
      if (!file) throw new UsageError('Usage: reports import FILE (a .closebook-report.json.gz, or the .json of earlier versions)');
      const meta = await reports.importFile(resolve(file));
      process.stdout.write(`${meta.id}\n`);
      process.stderr.write(`Imported "${meta.name}" (${meta.counts.lines} billing lines).\n`);
      return EXIT.ok;
    }
    const id = positionals[0];
    if (!id) throw new UsageError(`Usage: reports ${action ?? '<list|export|delete|import>'} ID`);
    if (action === 'export' && (values['per-group'] || values['out-dir'])) {
      if (!values['per-group'] || !values['out-dir'] || values.out || values.group)
        throw new UsageError('Usage: reports export ID --per-group --out-dir DIR [--organization TEXT] [--service NAME] [--currency CODE] [--text TEXT]');
      const outDir = resolve(values['out-dir']);
      const filter = { organization: values.organization, service: values.service, currency: values.currency, text: values.text };
      const { packs, inSeveralGroups } = await reports.exportGroupPacks(id, outDir, filter).catch((error: unknown) => {
        throw error instanceof AppError && error.code === 'not-found' ? new UsageError(`No saved report with id ${id}. See: closebook reports list`) : error;
      });
      for (const pack of packs) {
        const path = pack.file.kind === 'saved' ? pack.file.path : pack.fileName;
        process.stdout.write(
          `${pack.group ?? 'Ungrouped (in no group)'}  ${counted(pack.organizations, 'organization')}  ${pack.lines} billing lines  ${path}\n`,
        );
      }
      if (inSeveralGroups > 0)
        process.stderr.write(
          `${inSeveralGroups} organization${inSeveralGroups === 1 ? ' is' : 's are'} in more than one group: each is in the pack of every group it belongs to.\n`,
        );
      process.stderr.write(`Wrote ${packs.length} workbooks, one per organization group, to ${outDir}.\n`);
      return EXIT.ok;
    }
    if (action === 'export') {
      if (!values.out || !/\.(xlsx|parquet|csv)$/i.test(values.out)) throw new UsageError('reports export needs --out FILE.xlsx, FILE.parquet or FILE.csv');
      const filter = { group: values.group, organization: values.organization, service: values.service, currency: values.currency, text: values.text };
      const summary = await reports.exportReport(id, resolve(values.out), filter);
      process.stderr.write(`Wrote ${summary.lines} billing lines to ${resolve(values.out)}.\n`);
      return EXIT.ok;
    }
    if (action === 'delete') {
      const listings = await context.call('reports:list', {});
      if (!listings.some((listing) => (listing.state === 'ok' ? listing.meta.id : listing.id) === id)) throw new UsageError(`No saved report with id ${id}.`);
      await context.call('reports:delete', { reportId: id });
      process.stderr.write(`Deleted report ${id}.\n`);
      return EXIT.ok;
    }
    throw new UsageError(
      'Usage: reports list [--json] | reports export ID --out FILE.xlsx|.parquet|.csv [--group NAME] | reports export ID --per-group --out-dir DIR | reports delete ID | reports import FILE',
    );
  });
}

/** `ledger backup --out FILE`: a consistent copy made by the database, restorable by putting it in place of the ledger file. */
export async function ledgerCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values } = parse(rest, { out: { type: 'string' } });
  if (action !== 'backup' || !values.out) throw new UsageError('Usage: ledger backup --out FILE.duckdb');
  const target = resolve(values.out);
  return withContext(values['data-dir'], async (context) => {
    await context.service.ledger.backup(target);
    process.stderr.write(`Backed up the ledger to ${target}.\n`);
    return EXIT.ok;
  });
}
