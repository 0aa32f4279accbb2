import { z } from 'zod';
import { AppError } from '@shared/errors';
import type { ReportPeriod } from '@shared/schemas/billing-report';
import type { ServiceClient } from '../service-api/service-client';

const ASYNC_REPORTS = 'billing/reports/MonthlyBillingPerOrganizationAsync';

/**
 * Starts generation (spec §4.2): 201, empty body, and a `location` header with the report's full URL. The location
 * must be on the profile's own origin (the client refuses anything else, so the token never goes there).
 */
export async function startBillingReport(client: ServiceClient, period: ReportPeriod, signal?: AbortSignal): Promise<string> {
  const response = await client.request({
    method: 'POST',
    target: `/api/resellers/${encodeURIComponent(client.connection.resellerId)}/${ASYNC_REPORTS}`,
    body: { startDate: period.startDate, endDate: period.endDate },
    schema: z.unknown(),
    retry: 'unsafe',
    what: 'the answer to the report request',
    ...(signal ? { signal } : {}),
  });
  const location = response.headers.get('location');
  if (!location) {
    throw new AppError(
      'bad-response',
      `The service accepted the report request (HTTP ${response.status}) but did not say where the report will be (no location header). Try again; report it to the service if it repeats.`,
    );
  }
  return client.resolveLocation(location);
}
