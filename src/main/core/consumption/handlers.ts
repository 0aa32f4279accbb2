import type { ServiceHandlers } from '../../../shared/contract';
import type { Profile } from '../../../shared/schemas/profile';
import { Submission } from '../../../shared/schemas/consumption';
import type { ServiceClient } from '../platform/service-client';
import type { EventHub } from '../platform/event-hub';
import { deliverFile } from '../platform/files';
import type { Ports } from '../platform/ports';
import { JobStore } from '../platform/job-store';
import { ConsumptionTasks, summarize } from './consumption-task';
import { consumptionTemplateCsv, consumptionTemplateXlsx, parseConsumptionFile } from './consumption-file';
import { failedRowsCsv, failedRowsXlsx } from './failed-rows';

type ConsumptionHandlers = Pick<
  ServiceHandlers,
  'consumption:parse' | 'consumption:template' | 'consumption:submit' | 'consumption:history' | 'consumption:get' | 'consumption:resume' | 'consumption:export-failed'
>;

export interface ConsumptionModule {
  handlers: ConsumptionHandlers;
  tasks: ConsumptionTasks;
}

/** Metered consumption: import, submit and watch the all-or-nothing task, the failures by row, the history. */
export function createConsumption(
  ports: Ports,
  events: EventHub,
  getProfile: (profileId: string) => Promise<Profile>,
  clientFor: (profile: Profile) => Promise<ServiceClient>,
): ConsumptionModule {
  const tasks = new ConsumptionTasks({ clock: ports.clock, store: new JobStore(ports.dataDir, 'consumption-history', Submission), events, getProfile, clientFor });
  const handlers: ConsumptionHandlers = {
    'consumption:parse': ({ fileName, base64, sheet }) => parseConsumptionFile(fileName, Buffer.from(base64, 'base64'), sheet),
    'consumption:template': async ({ format }) =>
      format === 'csv'
        ? deliverFile(ports, 'Consumption template.csv', Buffer.from(consumptionTemplateCsv()), 'csv')
        : deliverFile(ports, 'Consumption template.xlsx', await consumptionTemplateXlsx(), 'xlsx'),
    'consumption:submit': ({ profileId, fileName, rows, confirmRepeat }) => tasks.submit(profileId, fileName, rows, confirmRepeat ? { confirmRepeat } : {}),
    'consumption:history': async () => (await tasks.history()).map(summarize),
    'consumption:get': ({ submissionId }) => tasks.get(submissionId),
    'consumption:resume': ({ submissionId }) => tasks.resume(submissionId),
    'consumption:export-failed': async ({ submissionId, format }) => {
      const submission = await tasks.get(submissionId);
      const name = `Failed records ${submission.fileName.replace(/\.[^.]+$/, '')}`;
      return format === 'csv' ? deliverFile(ports, `${name}.csv`, Buffer.from(failedRowsCsv(submission)), 'csv') : deliverFile(ports, `${name}.xlsx`, await failedRowsXlsx(submission), 'xlsx');
    },
  };
  return { handlers, tasks };
}
