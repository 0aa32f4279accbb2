import { z } from 'zod';
import { AppError } from '@shared/errors';
import { type ConsumptionRecord, FailedRecord } from '@shared/schemas/consumption';
import type { RetryNotice, ServiceClient } from '../service-api/service-client';

const Accepted = z.object({ message: z.string().nullish(), taskId: z.string().min(1, 'is empty') });

const TaskStatus = z.object({
  message: z.string(),
  failedConsumptionRecords: z
    .array(FailedRecord)
    .nullish()
    .transform((records) => records ?? []),
});
export type TaskStatus = z.output<typeof TaskStatus>;

/** The bulk consumption path of the profile's seller; the one place a missing seller ID is refused. */
export function bulkConsumptionPath(client: ServiceClient): string {
  const { sellerId } = client.connection;
  if (!sellerId) {
    throw new AppError('validation', 'This profile has no seller ID, which consumption needs. Add it in Settings (or --seller-id on the command line).', {
      sellerId: 'is required for consumption',
    });
  }
  return `/api/sellers/${encodeURIComponent(sellerId)}/services/bulkconsumptions`;
}

/**
 * POST the batch (spec §4.3): 202 with a taskId; the status URL comes from the response header when given (on the
 * profile's own origin only), else from the documented path. Never retried once it may have arrived.
 */
/**
 * The service's answer to a bulk submission. `statusUrl` is always on the profile's own origin: a `location` that
 * points elsewhere is not followed (the token would go with it) and is named in `refusedLocation` instead — the
 * batch was accepted, so the caller must not treat that as a failure.
 */
export interface AcceptedSubmission {
  taskId: string;
  statusUrl: string;
  message: string;
  refusedLocation: string | null;
}

export async function submitBulkConsumption(client: ServiceClient, records: ConsumptionRecord[]): Promise<AcceptedSubmission> {
  const path = bulkConsumptionPath(client);
  const response = await client.request({
    method: 'POST',
    target: path,
    body: { consumptionRecords: records },
    schema: Accepted,
    retry: 'unsafe',
    what: 'the answer to the consumption submission',
  });
  const header = response.headers.get('location');
  const ownStatusUrl = client.resolve(`${path}/${encodeURIComponent(response.data.taskId)}`);
  const accepted = { taskId: response.data.taskId, message: response.data.message ?? 'Accepted' };
  if (!header) return { ...accepted, statusUrl: ownStatusUrl, refusedLocation: null };
  try {
    return { ...accepted, statusUrl: client.resolveLocation(header), refusedLocation: null };
  } catch {
    return { ...accepted, statusUrl: ownStatusUrl, refusedLocation: header.slice(0, 200) };
  }
}

export function taskStatusUrl(client: ServiceClient, taskId: string): string {
  return client.resolve(`${bulkConsumptionPath(client)}/${encodeURIComponent(taskId)}`);
}

export async function getBulkConsumptionStatus(
  client: ServiceClient,
  statusUrl: string,
  signal?: AbortSignal,
  onRetry?: (notice: RetryNotice) => void,
): Promise<TaskStatus> {
  const response = await client.request({
    method: 'GET',
    target: statusUrl,
    schema: TaskStatus,
    retry: 'safe',
    what: 'the status of the consumption task',
    ...(signal ? { signal } : {}),
    ...(onRetry ? { onRetry } : {}),
  });
  return response.data;
}
