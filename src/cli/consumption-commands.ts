import { resolve } from 'node:path';
import { validateRows, PLAIN_HEADERS } from '@shared/consumption-rows';
import { periodInWords, stateInWords, usagePeriod } from '@shared/consumption-batch';
import { AppError } from '@shared/errors';
import type { ReportPeriod } from '@shared/schemas/billing-report';
import type { ConsumptionField, ParsedFile, SubmissionSummary } from '@shared/schemas/consumption';
import { CONNECTION_OPTIONS, type CliContext, createCliContext, EXIT, parse, resolveProfileId, UsageError, withContext } from './context';

/** Exit code for a task the service rejected (failed records written to --failed-out). */
const EXIT_TASK_FAILED = 3;

async function readRows(context: CliContext, file: string | undefined, sheet: string | undefined): Promise<ParsedFile> {
  if (!file) throw new UsageError('Name the file: --file consumption.csv (or .xlsx)');
  return context.service.consumption.readFile(file, sheet);
}

/** File and row problems, one per line on stderr; true when there were any. */
function reportProblems(parsed: ParsedFile): boolean {
  for (const problem of parsed.problems) process.stderr.write(`${parsed.fileName}: ${problem}\n`);
  if (parsed.problems.length) return true;
  const { problems, records } = validateRows(parsed.rows);
  for (const problem of problems) {
    const field = PLAIN_HEADERS[problem.field as ConsumptionField] ?? problem.field;
    process.stderr.write(`${parsed.fileName}: row ${problem.row}, ${field}: ${problem.message}\n`);
  }
  if (!problems.length) {
    const kept = parsed.extraColumns.length ? ` (your own columns, kept but not sent: ${parsed.extraColumns.join(', ')})` : '';
    const ignored = parsed.ignoredColumns.length ? ` (ignored columns: ${parsed.ignoredColumns.join(', ')})` : '';
    process.stderr.write(`${parsed.fileName}: ${records.length === 1 ? '1 record is' : `${records.length} records are`} valid${kept}${ignored}.\n`);
  }
  return problems.length > 0;
}

async function writeFailedOut(context: CliContext, submissionId: string, path: string): Promise<void> {
  const target = resolve(path);
  await context.service.consumption.writeFailedRows(submissionId, target);
  process.stderr.write(`Failed records with their errors: ${target}\n`);
}

function historyLine(submission: SubmissionSummary): string {
  const period = submission.period ? periodInWords(submission.period) : 'no period';
  return `${submission.createdAt.slice(0, 16).replace('T', ' ')}  ${stateInWords(submission).padEnd(36)}  ${period.padEnd(14)}  ${String(submission.recordCount).padStart(6)} records  ${submission.fileName}  ${submission.taskId ?? '-'}`;
}

/** `--period YYYY-MM`: the month the usage is for; last month when not given. */
function periodOption(value: string | undefined): ReportPeriod | undefined {
  if (value === undefined) return undefined;
  const period = usagePeriod(value);
  if (!period) throw new UsageError(`--period must be a month as YYYY-MM (like 2026-03), not "${value}"`);
  return period;
}

/** `consumption validate|submit|status|history`. */
export async function consumptionCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parse(rest, {
    ...CONNECTION_OPTIONS,
    file: { type: 'string' },
    sheet: { type: 'string' },
    'failed-out': { type: 'string' },
    'poll-interval': { type: 'string' },
    yes: { type: 'boolean', default: false },
    period: { type: 'string' },
  });
  if (action === 'validate') {
    const context = createCliContext(values['data-dir']);
    try {
      return reportProblems(await readRows(context, values.file, values.sheet)) ? EXIT.usage : EXIT.ok;
    } finally {
      await context.close();
    }
  }

  if (action === 'submit') {
    const failedOut = values['failed-out'];
    if (failedOut && !/\.(xlsx|csv)$/i.test(failedOut)) throw new UsageError('--failed-out must name an .xlsx or .csv file');
    const seconds = values['poll-interval'] === undefined ? undefined : Number(values['poll-interval']);
    if (seconds !== undefined && !(seconds > 0)) throw new UsageError('--poll-interval must be a number of seconds greater than 0');
    const period = periodOption(values.period);
    return withContext(
      values['data-dir'],
      async (context) => {
        const parsed = await readRows(context, values.file, values.sheet);
        if (reportProblems(parsed)) return EXIT.usage;
        const { service } = context;
        const profileId = await resolveProfileId(context, values);
        const unsubscribe = service.events.subscribe((event, payload) => {
          const summary = payload as SubmissionSummary;
          if (event === 'consumption:progress')
            process.stderr.write(`task ${summary.taskId ?? '(not yet)'}: ${stateInWords(summary)}${summary.message ? ` — ${summary.message}` : ''}\n`);
        });
        let submission;
        try {
          submission = await context.call('consumption:submit', {
            profileId,
            fileName: parsed.fileName,
            rows: parsed.rows,
            extraColumns: parsed.extraColumns,
            ...(period ? { period } : {}),
            ...(values.yes ? { confirmRepeat: true } : {}),
          });
        } catch (error) {
          if (error instanceof AppError && error.code === 'conflict') throw new UsageError(`${error.message} Add --yes to send it anyway.`);
          throw error;
        }
        process.stdout.write(`${submission.taskId ?? ''}\n`);
        await service.consumption.waitFor([submission.id]);
        unsubscribe();
        submission = await context.call('consumption:get', { submissionId: submission.id });
        if (submission.state === 'Successful') return EXIT.ok;
        if (submission.state === 'Failed') {
          for (const failure of submission.failures)
            process.stderr.write(`${failure.row === null ? 'no matching row' : `row ${failure.row}`}: ${failure.errorMessage}\n`);
          process.stderr.write('Nothing of this batch was saved by the service. Fix the rows and submit the whole file again.\n');
          if (failedOut) await writeFailedOut(context, submission.id, failedOut);
          return EXIT_TASK_FAILED;
        }
        process.stderr.write(`closebook: ${submission.message ?? `the submission ended as ${stateInWords(submission)}`}\n`);
        return EXIT.service;
      },
      seconds === undefined ? undefined : { consumptionMs: seconds * 1000 },
    );
  }

  if (action === 'status') {
    const taskId = positionals[0];
    if (!taskId) throw new UsageError('Usage: consumption status TASKID (with --profile NAME or --base-url …)');
    return withContext(values['data-dir'], async (context) => {
      const status = await context.service.consumption.taskStatus(await resolveProfileId(context, values), taskId);
      if (values.json) process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
      else {
        process.stdout.write(`${status.message}\n`);
        for (const failure of status.failedConsumptionRecords)
          process.stdout.write(
            `  ${failure.subscriptionId}${failure.addonId ? ` / ${failure.addonId}` : ''} (${failure.quantity ?? '?'}): ${failure.errorMessage}\n`,
          );
      }
      return status.message.toLowerCase() === 'failed' ? EXIT_TASK_FAILED : EXIT.ok;
    });
  }

  if (action === 'history') {
    return withContext(values['data-dir'], async (context: CliContext) => {
      const history = await context.call('consumption:history', {});
      if (values.json) process.stdout.write(`${JSON.stringify(history, null, 2)}\n`);
      else if (history.length === 0) process.stderr.write(`No consumption submissions in ${context.dataDir}.\n`);
      else for (const submission of history) process.stdout.write(`${historyLine(submission)}\n`);
      return EXIT.ok;
    });
  }
  throw new UsageError(
    'Usage: consumption validate --file F | submit --file F [--period YYYY-MM] [--failed-out F.xlsx|.csv] [--poll-interval S] [--yes] | status TASKID | history [--json]',
  );
}
