import { createHash, randomUUID } from 'node:crypto';
import { canonicalRecords, joinFailures, validateRows } from '@shared/consumption-rows';
import { AppError } from '@shared/errors';
import { lastUsageMonth, periodInWords, usageNotBegun, usagePeriod } from '@shared/consumption-batch';
import type { ReportPeriod } from '@shared/schemas/billing-report';
import type { Profile } from '@shared/schemas/profile';
import type { InputRow, Submission, SubmissionSummary } from '@shared/schemas/consumption';
import { bulkConsumptionPath, getBulkConsumptionStatus, submitBulkConsumption } from './consumption-api';
import type { ServiceClient } from '../service-api/service-client';
import type { EventHub } from '../runtime/event-hub';
import type { Clock } from '../ports/ports';
import { type SubmissionStore, summarize } from './history-store';
import { PollLoops } from '../runtime/poll-loop';
import { counted } from '@shared/counted';

/** The first check a few seconds after sending, then twice as long each time, up to 30 s (a loopback twin: faster). */
export function consumptionPollDelay(polls: number, loopback: boolean): number {
  const [first, cap] = loopback ? [250, 2_000] : [3_000, 30_000];
  return Math.min(cap, first * 2 ** polls);
}

const ACTIVE: Submission['state'][] = ['Queued', 'Processing'];

export interface SubmitOptions {
  /** The user's explicit yes to sending a batch identical to one that may already have arrived. */
  confirmRepeat?: boolean;
  period?: ReportPeriod;
  extraColumns?: string[];
}

/** The rows as kept: each with as many of the user's own values as there are named columns (none without any). */
function keptRows(rows: InputRow[], extraColumns: number): InputRow[] {
  return rows.map(({ extra, ...row }) =>
    extraColumns && extra ? { ...row, extra: Array.from({ length: extraColumns }, (_, index) => extra[index] ?? '') } : row,
  );
}

export interface ConsumptionDeps {
  clock: Clock;
  store: SubmissionStore;
  events: EventHub;
  getProfile: (profileId: string) => Promise<Profile>;
  clientFor: (profile: Profile) => Promise<ServiceClient>;
  /** Overrides the back-off schedule (the CLI's --poll-interval). */
  pollDelay?: (polls: number, loopback: boolean) => number;
}

/**
 * Bulk consumption as a durable workflow: validate, refuse an unconfirmed repeat, save, POST, then poll the task
 * to Successful or Failed (failures joined to their rows). History stays in the same store, readable offline.
 */
export class ConsumptionTasks {
  private readonly loops: PollLoops<Submission>;

  private readonly pollDelay: (polls: number, loopback: boolean) => number;

  constructor(private readonly deps: ConsumptionDeps) {
    this.pollDelay = deps.pollDelay ?? consumptionPollDelay;
    this.loops = new PollLoops(deps.clock, {
      poll: (submission, signal) => this.poll(submission, signal),
      keep: async (submission, error) => {
        const client = await this.client(submission);
        return this.save({
          ...submission,
          message: `${error.message} Closebook keeps checking.`,
          nextPollAt: this.after(this.pollDelay(submission.polls, client.isLoopback)),
        });
      },
      stop: async (submission, error) => {
        await this.save({ ...submission, state: 'error', nextPollAt: null, message: `${error.message} Use "Check again" to retry.` });
      },
    });
  }

  /**
   * `period` is the month the usage is for (last month when not given); `extraColumns` name the rows' own columns,
   * kept with the submission and never sent.
   */
  async submit(profileId: string, fileName: string, rows: InputRow[], options: SubmitOptions = {}): Promise<Submission> {
    const profile = await this.deps.getProfile(profileId);
    const client = await this.deps.clientFor(profile);
    bulkConsumptionPath(client); // refuses a profile without seller ID before anything is saved
    const { records, problems } = validateRows(rows);
    if (problems.length) {
      const fields = Object.fromEntries(problems.map((problem) => [`row.${problem.row}.${problem.field}`, problem.message]));
      const first = problems[0] as (typeof problems)[number];
      throw new AppError('validation', `Nothing was sent: ${counted(problems.length, 'problem')} to fix first (row ${first.row}: ${first.message})`, fields);
    }
    const contentHash = createHash('sha256').update(canonicalRecords(records)).digest('hex');
    const period = options.period ?? (usagePeriod(lastUsageMonth(new Date(this.deps.clock.now()))) as ReportPeriod);
    const notBegun = usageNotBegun(period, new Date(this.deps.clock.now()));
    if (notBegun) throw new AppError('validation', `Nothing was sent. ${notBegun}`);
    if (!options.confirmRepeat) {
      // The same records for another month are that month's usage, not a repeat; a batch saved without a period may be either.
      const samePeriod = (earlier: SubmissionSummary) =>
        !earlier.period || (earlier.period.startDate === period.startDate && earlier.period.endDate === period.endDate);
      const earlier = (await this.deps.store.summaries()).find(
        (s) =>
          s.profileId === profileId &&
          s.contentHash === contentHash &&
          samePeriod(s) &&
          ['Successful', 'outcome-unknown', 'sending', ...ACTIVE].includes(s.state),
      );
      if (earlier) {
        // The core does not know the user's zone, so the time says its own (the history shows it in local time).
        const when = `${earlier.createdAt.slice(0, 16).replace('T', ' ')} UTC`;
        const reason =
          earlier.state === 'Successful'
            ? `was already submitted successfully on ${when} (task ${earlier.taskId})`
            : earlier.state === 'outcome-unknown'
              ? `was sent on ${when}, but the connection broke, so it may have arrived`
              : `is being processed (sent ${when})`;
        throw new AppError(
          'conflict',
          `This exact batch for ${periodInWords(period)} ${reason}. Sending it again may count the consumption twice; confirm only if that is what you want.`,
        );
      }
    }
    const extraColumns = options.extraColumns ?? [];
    const now = new Date(this.deps.clock.now()).toISOString();
    let submission: Submission = {
      id: randomUUID(),
      profileId,
      profileName: profile.name,
      fileName,
      contentHash,
      period,
      extraColumns,
      rows: keptRows(rows, extraColumns.length), // every row is valid here, so each produced exactly one record
      records,
      taskId: null,
      statusUrl: null,
      state: 'sending',
      message: null,
      failures: [],
      createdAt: now,
      updatedAt: now,
      polls: 0,
      nextPollAt: null,
    };
    await this.save(submission); // on disk before the POST: a crash mid-send is then known as "outcome unknown"
    try {
      const accepted = await submitBulkConsumption(client, records);
      if (accepted.refusedLocation !== null) {
        // Accepted, but its status was pointed at another address: keep the task id, never call this a failure.
        return await this.save({
          ...submission,
          taskId: accepted.taskId,
          statusUrl: accepted.statusUrl,
          state: 'outcome-unknown',
          message: `The service accepted this batch as task ${accepted.taskId} but pointed to its status at another address (${accepted.refusedLocation}), which Closebook does not follow. Check the task in the service (or with "Check again") before sending this batch again.`,
        });
      }
      submission = await this.save({
        ...submission,
        taskId: accepted.taskId,
        statusUrl: accepted.statusUrl,
        state: 'Queued',
        message: accepted.message,
        nextPollAt: this.after(this.pollDelay(0, client.isLoopback)),
      });
      this.loops.start(submission);
    } catch (error) {
      const appError = error instanceof AppError ? error : new AppError('internal', String(error));
      submission = await this.save({
        ...submission,
        state: mayHaveArrived(appError) ? 'outcome-unknown' : 'error',
        message: mayHaveArrivedMessage(appError),
      });
    }
    return submission;
  }

  /** Every submission, newest first, from the index (no batch file is read). */
  async history(): Promise<SubmissionSummary[]> {
    return (await this.deps.store.summaries()).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  async get(id: string): Promise<Submission> {
    const submission = await this.deps.store.get(id);
    if (!submission) throw new AppError('not-found', 'That submission is not in the history.');
    return submission;
  }

  /** After a restart: resumes tasks in flight; a send that never got its answer becomes "outcome unknown". */
  async resumeAll(): Promise<void> {
    for (const submission of await this.deps.store.list()) {
      if (submission.state === 'sending') {
        await this.save({
          ...submission,
          state: 'outcome-unknown',
          message: 'Closebook stopped while sending this batch, so it cannot tell whether the service received it. Check the service before sending it again.',
        });
      } else if (ACTIVE.includes(submission.state) && submission.statusUrl) this.loops.start(submission);
    }
  }

  /** Checks a task again (after an error, or to refresh). */
  async resume(id: string): Promise<Submission> {
    const submission = await this.get(id);
    if (submission.state === 'Successful' || submission.state === 'Failed') {
      // The service's answer is final: checking again must not make a finished batch look queued.
      throw new AppError(
        'validation',
        `This batch already ${submission.state === 'Successful' ? 'succeeded' : 'failed'}: there is nothing left to check. To send it again, copy it to a new batch.`,
      );
    }
    if (!submission.statusUrl) throw new AppError('validation', 'This batch never got a task from the service, so there is nothing to check.');
    const resumed = await this.save({ ...submission, state: ACTIVE.includes(submission.state) ? submission.state : 'Queued', nextPollAt: this.after(0) });
    this.loops.start(resumed);
    return resumed;
  }

  settled(ids?: string[]): Promise<void> {
    return this.loops.settled(ids);
  }

  stopAll(): Promise<void> {
    return this.loops.stopAll();
  }

  private async poll(submission: Submission, signal: AbortSignal): Promise<{ job: Submission; done: boolean }> {
    const client = await this.client(submission);
    const status = await getBulkConsumptionStatus(client, submission.statusUrl as string, signal);
    const polls = submission.polls + 1;
    const state = (['Queued', 'Processing', 'Successful', 'Failed'] as const).find((known) => known.toLowerCase() === status.message.trim().toLowerCase());
    if (state === 'Queued' || state === 'Processing') {
      return {
        job: await this.save({ ...submission, state, polls, message: null, nextPollAt: this.after(this.pollDelay(polls, client.isLoopback)) }),
        done: false,
      };
    }
    if (state === 'Successful') {
      return {
        job: await this.save({
          ...submission,
          state,
          polls,
          nextPollAt: null,
          message: submission.records.length === 1 ? 'The record was submitted.' : `All ${counted(submission.records.length, 'record')} were submitted.`,
        }),
        done: true,
      };
    }
    if (state === 'Failed') {
      const recordRows = submission.rows.map((row) => row.row);
      const failures = joinFailures(submission.records, recordRows, status.failedConsumptionRecords);
      const failed = await this.save({
        ...submission,
        state,
        polls,
        nextPollAt: null,
        failures,
        message: `The service rejected ${failures.length} of ${counted(submission.records.length, 'record')}, so it saved none of this batch. Fix or remove the rows marked, then submit the whole batch again.`,
      });
      return { job: failed, done: true };
    }
    throw new AppError(
      'bad-response',
      `The service answered the task status "${status.message}", which Closebook does not know (Queued, Processing, Successful or Failed). Check the task ${submission.taskId} in the service.`,
    );
  }

  private async client(submission: Submission): Promise<ServiceClient> {
    return this.deps.clientFor(await this.deps.getProfile(submission.profileId));
  }

  private after(ms: number): string {
    return new Date(this.deps.clock.now() + ms).toISOString();
  }

  private async save(submission: Submission): Promise<Submission> {
    const updated = { ...submission, updatedAt: new Date(this.deps.clock.now()).toISOString() };
    await this.deps.store.put(updated);
    this.deps.events.emit('consumption:progress', summarize(updated));
    return updated;
  }
}

/** After the POST left, only a clear refusal from the service means the batch did not arrive. */
function mayHaveArrived(error: AppError): boolean {
  // A cut-off send, or an answer whose body cannot be read (the service may have accepted the batch).
  return error.code === 'outcome-unknown' || error.code === 'bad-response';
}

function mayHaveArrivedMessage(error: AppError): string {
  if (error.code === 'bad-response') {
    return 'The service answered the submission in a form Closebook cannot read, so it cannot tell whether the batch was accepted. Look in the service for task results before sending this batch again.';
  }
  if (error.code === 'outcome-unknown') return `${error.message} Look in the service for task results before sending this batch again.`;
  return error.message;
}
