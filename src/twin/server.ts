import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IsoDate } from '@shared/schemas/common';
import type { DemoService } from '@core/ports/ports';
import { buildBillingReport, type WireBillingEntry } from './billing-report';
import { findFailedRecords, readConsumptionBody, subscriptionsById, type WireConsumptionRecord, type WireFailedRecord } from './consumption';
import { DEMO_CREDENTIALS } from './credentials';
import { generateOrganizations, type TwinOrganization } from './dataset';
import { FaultQueue, RestateRequest, TwinControl } from './faults';
import { organizationRecord, validateNewOrganization } from './organizations';
import { monthPlan, type PlantedChanges } from './planted';
import { mixSeed, SeededRandom } from './random';

export interface TwinOptions {
  port?: number;
  seed?: number;
  organizations?: number;
  linesPerOrganization?: number;
  tokenTtlSeconds?: number;
  /** A report is ready once both this much time has passed and this many polls were answered. */
  reportReadyAfterMs?: number;
  reportReadyAfterPolls?: number;
  /** Spec §2.3 allows both shapes; 'alternate' switches per report so clients meet both. */
  reportShape?: 'bare' | 'wrapped' | 'alternate';
  statusType?: 'number' | 'string' | 'alternate';
  taskQueuedMs?: number;
  taskProcessingMs?: number;
  inconsistentEvery?: number;
  /** Plant each month's changes and anomalies (planted.ts); on unless false. */
  plant?: boolean;
  /** The organization list lags behind the billing: it lists only the first this many (all unless given). */
  listedOrganizations?: number;
  credentials?: DemoService['credentials'];
  now?: () => number;
}

interface ReportJob {
  id: string;
  sequence: number;
  startDate: string;
  endDate: string;
  createdAt: number;
  polls: number;
  data?: WireBillingEntry[];
}

interface ConsumptionTask {
  taskId: string;
  createdAt: number;
  records: WireConsumptionRecord[];
  failed: WireFailedRecord[];
  saved: boolean;
}

export interface Twin {
  baseUrl: string;
  credentials: DemoService['credentials'];
  organizations: TwinOrganization[];
  faults: FaultQueue;
  /** The per-run token `POST /__twin/faults` needs in its `x-twin-control` header (tests get it; the app's demo never hands it out). */
  controlToken: string;
  /** Makes every token issued so far invalid, as if they expired. */
  expireTokens(): void;
  /** Consumption records saved by successful tasks. */
  savedConsumption(): WireConsumptionRecord[];
  /** What this twin planted in a month ('YYYY-MM') against the month before; all null but the restatement's line when planting is off. */
  plantedChanges(period: string): PlantedChanges;
  /** From now on, reports of this month ('YYYY-MM') show it restated: one line with 3 more licences (`plantedChanges(period).restatement`). */
  restate(period: string): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
  }
}

function problem(status: number, title: string, errors?: Record<string, string[]>): HttpError {
  return new HttpError(status, { type: 'about:blank', title, status, ...(errors ? { errors } : {}) });
}

/**
 * The service twin: a loopback HTTP server that behaves like the real service for every call whose shape the spec
 * gives. It is the app's demo mode and what the tests, the CLI and the benchmark run against.
 */
export async function startTwin(options: TwinOptions = {}): Promise<Twin> {
  const now = options.now ?? Date.now;
  const credentials = options.credentials ?? DEMO_CREDENTIALS;
  const seed = options.seed ?? 42;
  const organizations = generateOrganizations({
    seed,
    organizations: options.organizations ?? 60,
    linesPerOrganization: options.linesPerOrganization ?? 10,
  });
  const subscriptions = subscriptionsById(organizations);
  const createdOrganizations: TwinOrganization[] = [];
  const tokens = new Map<string, number>();
  const reports = new Map<string, ReportJob>();
  const tasks = new Map<string, ConsumptionTask>();
  const saved: WireConsumptionRecord[] = [];
  const savedIds = new Set<string>();
  const faults = new FaultQueue();
  const controlToken = randomBytes(16).toString('hex');
  const ttlMs = (options.tokenTtlSeconds ?? 3600) * 1000;
  const idRandom = new SeededRandom(mixSeed(seed, 99));
  const plant = options.plant ?? true;
  const restated = new Set<string>();
  let reportSequence = 0;
  let baseUrl = '';

  function authorize(request: IncomingMessage) {
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : '';
    const expiresAt = tokens.get(token);
    if (expiresAt === undefined || expiresAt <= now()) {
      throw new HttpError(401, { title: 'Unauthorized', status: 401 }, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    }
  }

  function issueToken(request: IncomingMessage, body: string) {
    const form = new URLSearchParams(body);
    const basic = (request.headers.authorization ?? '').replace(/^Basic\s+/i, '');
    const [basicId, ...secretParts] = Buffer.from(basic, 'base64').toString('utf8').split(':');
    if (basicId !== credentials.clientId || secretParts.join(':') !== credentials.apiSecret || form.get('client_id') !== credentials.clientId) {
      throw new HttpError(401, { error: 'invalid_client' });
    }
    if (form.get('grant_type') !== 'password' || form.get('scope') !== 'api') {
      throw new HttpError(400, { error: 'unsupported_grant_type' });
    }
    if (form.get('username') !== credentials.username || form.get('password') !== credentials.password) {
      throw new HttpError(400, { error: 'invalid_grant', error_description: 'invalid_username_or_password' });
    }
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, now() + ttlMs);
    return { access_token: token, expires_in: Math.round(ttlMs / 1000), token_type: 'Bearer', scope: 'api' };
  }

  function reportResponse(job: ReportJob, overrideStatus?: number | string): unknown {
    job.polls++;
    const ready = now() - job.createdAt >= (options.reportReadyAfterMs ?? 5000) && job.polls > (options.reportReadyAfterPolls ?? 1);
    if (ready && !job.data)
      job.data = buildBillingReport(organizations, job.startDate, job.endDate, { seed, inconsistentEvery: options.inconsistentEvery ?? 0, plant, restated });
    const numericStatus = overrideStatus ?? (ready ? 5 : 0);
    const statusType = options.statusType ?? 'alternate';
    const asString = statusType === 'string' || (statusType === 'alternate' && job.sequence % 2 === 0);
    const body = { status: asString ? String(numericStatus) : numericStatus, data: ready && overrideStatus === undefined ? job.data : null };
    const shape = options.reportShape ?? 'alternate';
    const wrapped = shape === 'wrapped' || (shape === 'alternate' && job.sequence % 2 === 1);
    return wrapped ? [body] : body;
  }

  function taskResponse(task: ConsumptionTask) {
    const elapsed = now() - task.createdAt;
    const queuedMs = options.taskQueuedMs ?? 2000;
    const processingMs = options.taskProcessingMs ?? 4000;
    if (elapsed < queuedMs) return { message: 'Queued', failedConsumptionRecords: [] };
    if (elapsed < queuedMs + processingMs) return { message: 'Processing', failedConsumptionRecords: [] };
    if (task.failed.length) return { message: 'Failed', failedConsumptionRecords: task.failed };
    if (!task.saved) {
      task.saved = true;
      for (const record of task.records) {
        const id = record.consumptionId || idRandom.guid();
        savedIds.add(id.toLowerCase());
        saved.push({ ...record, consumptionId: id });
      }
    }
    return { message: 'Successful', failedConsumptionRecords: [] };
  }

  async function route(request: IncomingMessage, body: string): Promise<{ status: number; body?: unknown; headers?: Record<string, string> }> {
    const method = request.method ?? 'GET';
    const path = new URL(request.url ?? '/', 'http://twin').pathname;
    const json = () => {
      try {
        return body ? JSON.parse(body) : undefined;
      } catch {
        throw problem(400, 'The request body is not valid JSON.');
      }
    };

    if (method === 'POST' && /^\/connect\/token$/i.test(path)) return { status: 200, body: issueToken(request, body) };

    const reseller = /^\/api\/resellers\/([^/]+)\/(.*)$/i.exec(path);
    const seller = /^\/api\/sellers\/([^/]+)\/(.*)$/i.exec(path);
    if (!reseller && !seller) throw problem(404, `No route for ${method} ${path}.`);
    authorize(request);
    if (reseller && reseller[1]?.toLowerCase() !== credentials.resellerId) throw problem(403, 'The reseller does not belong to this user.');
    if (seller && seller[1]?.toLowerCase() !== credentials.sellerId) throw problem(403, 'The seller does not belong to this user.');
    const rest = (reseller ?? seller)?.[2] ?? '';

    if (reseller && /^organizations$/i.test(rest)) {
      const listed = [...organizations.slice(0, options.listedOrganizations ?? organizations.length), ...createdOrganizations];
      if (method === 'GET') return { status: 200, body: listed.map(organizationRecord) };
      if (method === 'POST') {
        const input = json();
        const errors = validateNewOrganization(input, listed);
        if (Object.keys(errors).length) throw problem(400, 'One or more validation errors occurred.', errors);
        const organization: TwinOrganization = { ...(input as TwinOrganization), orgId: randomUUID(), organizationGroups: [], services: [], currency: 'EUR' };
        createdOrganizations.push(organization);
        return {
          status: 201,
          body: organizationRecord(organization),
          headers: { Location: `${baseUrl}/api/resellers/${credentials.resellerId}/Organizations/${organization.orgId}` },
        };
      }
    }

    const reportPath = /^billing\/reports\/MonthlyBillingPerOrganizationAsync(?:\/([^/]+))?$/i.exec(rest);
    if (reseller && reportPath) {
      if (method === 'POST' && !reportPath[1]) {
        const input = json() as { startDate?: unknown; endDate?: unknown } | undefined;
        const start = IsoDate.safeParse(input?.startDate);
        const end = IsoDate.safeParse(input?.endDate);
        const errors: Record<string, string[]> = {};
        if (!start.success) errors.StartDate = ['StartDate must be a date (YYYY-MM-DD).'];
        if (!end.success) errors.EndDate = ['EndDate must be a date (YYYY-MM-DD).'];
        if (start.success && end.success && start.data > end.data) errors.EndDate = ['EndDate must not be before StartDate.'];
        if (Object.keys(errors).length) throw problem(400, 'One or more validation errors occurred.', errors);
        const job: ReportJob = {
          id: randomUUID(),
          sequence: reportSequence++,
          startDate: start.data as string,
          endDate: end.data as string,
          createdAt: now(),
          polls: 0,
        };
        reports.set(job.id, job);
        // Spec §4.2: 201, empty body, absolute location.
        return {
          status: 201,
          headers: { Location: `${baseUrl}/api/resellers/${credentials.resellerId}/billing/reports/MonthlyBillingPerOrganizationAsync/${job.id}` },
        };
      }
      if (method === 'GET' && reportPath[1]) {
        const job = reports.get(reportPath[1]);
        if (!job) throw problem(404, 'Report not found.');
        const override = faults.take(method, path, ['report-status']);
        return { status: 200, body: reportResponse(job, override?.kind === 'report-status' ? override.status : undefined) };
      }
    }

    const bulkPath = /^services\/bulkconsumptions(?:\/([^/]+))?$/i.exec(rest);
    if (seller && bulkPath) {
      if (method === 'POST' && !bulkPath[1]) {
        const read = readConsumptionBody(json());
        if ('errors' in read) throw problem(400, 'One or more validation errors occurred.', read.errors);
        const taskId = randomUUID();
        tasks.set(taskId, {
          taskId,
          createdAt: now(),
          records: read.records,
          failed: findFailedRecords(read.records, subscriptions, savedIds, credentials.sellerId),
          saved: false,
        });
        return {
          status: 202,
          body: { message: 'Bulk consumption task accepted and queued.', taskId },
          headers: { Location: `${baseUrl}/api/sellers/${credentials.sellerId}/services/bulkconsumptions/${taskId}` },
        };
      }
      if (method === 'GET' && bulkPath[1]) {
        const task = tasks.get(bulkPath[1]);
        if (!task) throw problem(404, 'Task not found.');
        return { status: 200, body: taskResponse(task) };
      }
    }
    throw problem(404, `No route for ${method} ${path}.`);
  }

  /**
   * Test controls and read-only views of the twin's synthetic data; it listens on loopback only. Changing its
   * behaviour needs the per-run token, so a page or program that merely finds the port cannot inject faults.
   */
  function control(request: IncomingMessage, path: string, body: string): { status: number; body?: unknown } | undefined {
    if (path === '/__twin/faults' || path === '/__twin/restate') {
      if (request.method !== 'POST') return { status: 405, body: { title: 'Use POST.' } };
      const given = Buffer.from(String(request.headers['x-twin-control'] ?? ''));
      const expected = Buffer.from(controlToken);
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        return { status: 403, body: { title: "The twin's controls need its per-run token in x-twin-control." } };
      let json: unknown;
      try {
        json = JSON.parse(body || '{}');
      } catch {
        return { status: 400, body: { title: 'The body is not JSON.' } };
      }
      if (path === '/__twin/restate') {
        const parsed = RestateRequest.safeParse(json);
        if (!parsed.success) return { status: 400, body: { title: `Not a restatement the twin can make: ${parsed.error.issues[0]?.message ?? 'invalid'}.` } };
        restated.add(parsed.data.period);
        return { status: 204 };
      }
      const parsed = TwinControl.safeParse(json);
      if (!parsed.success) return { status: 400, body: { title: `Not a fault the twin knows: ${parsed.error.issues[0]?.message ?? 'invalid'}.` } };
      if (parsed.data.kind === 'expire-tokens') tokens.clear();
      else if (parsed.data.kind === 'clear') faults.clear();
      else faults.add(parsed.data);
      return { status: 204 };
    }
    if (path === '/__twin/subscriptions') {
      return {
        status: 200,
        body: [...subscriptions.values()]
          .filter((subscription) => subscription.metered)
          .map((subscription) => ({
            subscriptionId: subscription.subscriptionId,
            itemName: subscription.itemName,
            addonIds: subscription.addons.map((addon) => addon.addonId),
          })),
      };
    }
    if (path === '/__twin/state') return { status: 200, body: { savedConsumption: saved.length, tasks: tasks.size, reports: reports.size } };
    return undefined;
  }

  const server = createServer((request, response) => {
    // Whatever goes wrong in one request, the twin answers 500 and keeps running.
    handle(request, response).catch(() => {
      if (!response.headersSent) send(response, 500, { title: 'Internal error in the twin' });
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const method = request.method ?? 'GET';
    const path = new URL(request.url ?? '/', 'http://twin').pathname;
    let body: string;
    try {
      body = await readBody(request);
    } catch {
      send(response, 413, { title: 'Request body too large.' });
      return;
    }
    const controlled = path.startsWith('/__twin/') ? control(request, path, body) : undefined;
    if (controlled) return send(response, controlled.status, controlled.body);

    const fault = faults.take(method, path, ['status', 'drop', 'drop-after-processing', 'slow', 'malformed']);
    if (fault?.kind === 'drop') return void request.socket.destroy();
    if (fault?.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    if (fault?.kind === 'status') {
      const headers: Record<string, string> = fault.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(fault.retryAfterSeconds) };
      return send(response, fault.status, { title: 'Injected fault', status: fault.status }, headers);
    }
    let result: { status: number; body?: unknown; headers?: Record<string, string> };
    try {
      result = await route(request, body);
    } catch (error) {
      if (error instanceof HttpError) result = { status: error.status, body: error.body, headers: error.headers };
      else result = { status: 500, body: { title: 'Internal error in the twin' } };
    }
    if (fault?.kind === 'drop-after-processing') return void request.socket.destroy();
    if (fault?.kind === 'malformed') {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end('{"status": 5, "data": [');
      return;
    }
    send(response, result.status, result.body, result.headers);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    credentials,
    organizations,
    faults,
    controlToken,
    expireTokens: () => tokens.clear(),
    savedConsumption: () => [...saved],
    plantedChanges: (period) => monthPlan({ seed, organizations }, RestateRequest.shape.period.parse(period), plant).changes,
    restate: (period) => {
      restated.add(RestateRequest.shape.period.parse(period));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('too large'));
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) {
  if (body === undefined) {
    response.writeHead(status, { 'Content-Length': '0', ...headers });
    response.end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)), ...headers });
  response.end(text);
}
