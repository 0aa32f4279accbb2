import type { ServiceHandlers } from '@shared/contract';
import type { Profile } from '@shared/schemas/profile';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { AppError } from '@shared/errors';
import { MAX_CONSUMPTION_FILE_BYTES, type ParsedFile } from '@shared/schemas/consumption';
import type { Connections, Profiles } from '../profiles';
import { getBulkConsumptionStatus, taskStatusUrl, type TaskStatus } from './consumption-api';
import type { EventHub } from '../runtime/event-hub';
import { deliverBytes } from '../storage/files';
import { outputsFor } from '../storage/output-file';
import type { Ports } from '../ports/ports';
import { ConsumptionTasks } from './consumption-task';
import { FileSubmissionStore } from './history-store';
import { consumptionTemplateCsv, consumptionTemplateXlsx, parseConsumptionFile, tooLarge } from './consumption-file';
import { failedRowsCsv, failedRowsXlsx } from './failed-rows';
import { subscriptionNames } from './subscription-names';
import type { Ledger } from '../ledger/ledger';

type ConsumptionHandlers = Pick<
  ServiceHandlers,
  | 'consumption:parse'
  | 'consumption:template'
  | 'consumption:submit'
  | 'consumption:history'
  | 'consumption:get'
  | 'consumption:resume'
  | 'consumption:export-failed'
  | 'consumption:names'
>;

/** What hosts may do with consumption beyond the contract (the CLI reads files by path and waits on tasks). */
export interface ConsumptionApi {
  /** Reads a CSV or XLSX file from disk into rows (problems named by row), as the import screen does. */
  readFile(path: string, sheet?: string): Promise<ParsedFile>;
  /** Waits until the submissions' tasks end (Successful, Failed, error) or their loops are stopped. */
  waitFor(submissionIds: string[]): Promise<void>;
  /** Asks the service for a task's state by its id, whether or not Closebook sent it. */
  taskStatus(profileId: string, taskId: string): Promise<TaskStatus>;
  /** Writes a failed submission's rows with their errors to `path` (.csv or .xlsx). */
  writeFailedRows(submissionId: string, path: string): Promise<void>;
}

export interface ConsumptionModule {
  handlers: ConsumptionHandlers;
  api: ConsumptionApi;
  tasks: ConsumptionTasks;
}

/**
 * Metered consumption: import, submit and watch the all-or-nothing task, the failures by row, the history; names
 * beside the ids from the saved reports in the ledger.
 */
export function createConsumption(
  ports: Ports,
  events: EventHub,
  profiles: Profiles,
  connections: Connections,
  ledger: () => Promise<Ledger>,
): ConsumptionModule {
  const getProfile = (profileId: string) => profiles.get(profileId);
  const clientFor = (profile: Profile) => connections.clientFor(profile);
  const pollEvery = ports.pollIntervals?.consumptionMs;
  const store = new FileSubmissionStore(ports.dataDir, ports.log);
  const tasks = new ConsumptionTasks({
    clock: ports.clock,
    store,
    events,
    getProfile,
    clientFor,
    ...(pollEvery === undefined ? {} : { pollDelay: () => pollEvery }),
  });
  const handlers: ConsumptionHandlers = {
    'consumption:parse': ({ fileName, base64, sheet }) => parseConsumptionFile(fileName, Buffer.from(base64, 'base64'), sheet),
    'consumption:template': async ({ format }) =>
      format === 'csv'
        ? deliverBytes(ports, 'Consumption template.csv', 'csv', Buffer.from(consumptionTemplateCsv()))
        : deliverBytes(ports, 'Consumption template.xlsx', 'xlsx', await consumptionTemplateXlsx()),
    'consumption:submit': ({ profileId, fileName, rows, confirmRepeat, period, extraColumns }) =>
      tasks.submit(profileId, fileName, rows, {
        ...(confirmRepeat ? { confirmRepeat } : {}),
        ...(period ? { period } : {}),
        ...(extraColumns ? { extraColumns } : {}),
      }),
    // The saved reports of the same service and reseller the profile connects to, as reports are saved under.
    'consumption:names': async ({ profileId, subscriptionIds }) => {
      const { connection } = await clientFor(await getProfile(profileId));
      return subscriptionNames(await ledger(), { host: new URL(connection.baseUrl).host, resellerId: connection.resellerId }, subscriptionIds);
    },
    // from the index alone: listing never reads the submissions' rows
    'consumption:history': () => tasks.history(),
    'consumption:get': ({ submissionId }) => tasks.get(submissionId),
    'consumption:resume': ({ submissionId }) => tasks.resume(submissionId),
    'consumption:export-failed': async ({ submissionId, format }) => {
      const submission = await tasks.get(submissionId);
      const name = `Failed records ${submission.fileName.replace(/\.[^.]+$/, '')}`;
      return format === 'csv'
        ? deliverBytes(ports, `${name}.csv`, 'csv', Buffer.from(failedRowsCsv(submission)))
        : deliverBytes(ports, `${name}.xlsx`, 'xlsx', await failedRowsXlsx(submission));
    },
  };
  const api: ConsumptionApi = {
    readFile: async (path, sheet) => {
      let bytes: Buffer;
      try {
        // A CSV larger than any batch is refused before it is read into memory (a workbook is read within its own bounds).
        const { size } = await stat(path);
        if (!/\.xlsx$/i.test(path) && size > MAX_CONSUMPTION_FILE_BYTES) return tooLarge(basename(path), size);
        bytes = await readFile(path);
      } catch (error) {
        throw new AppError('validation', `${path} could not be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
      }
      return parseConsumptionFile(basename(path), bytes, sheet);
    },
    waitFor: (submissionIds) => tasks.settled(submissionIds),
    taskStatus: (profileId, taskId) => connections.withService(profileId, (client) => getBulkConsumptionStatus(client, taskStatusUrl(client, taskId))),
    writeFailedRows: async (submissionId, path) => {
      const submission = await tasks.get(submissionId);
      await outputsFor(ports.dataDir).writeBytes(path, path.toLowerCase().endsWith('.csv') ? failedRowsCsv(submission) : await failedRowsXlsx(submission));
    },
  };
  return { handlers, api, tasks };
}
