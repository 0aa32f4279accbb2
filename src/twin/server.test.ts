import { afterEach, describe, expect, it } from 'vitest';
import { startTwin, type Twin } from './server';

let twin: Twin | undefined;
afterEach(async () => {
  await twin?.close();
  twin = undefined;
});

async function signIn(t: Twin): Promise<string> {
  const c = t.credentials;
  const response = await fetch(`${t.baseUrl}/connect/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${c.clientId}:${c.apiSecret}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: c.clientId, grant_type: 'password', username: c.username, password: c.password, scope: 'api' }).toString(),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

function api(t: Twin, token: string, path: string, init: RequestInit = {}) {
  return fetch(`${t.baseUrl}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
  });
}

describe('the service twin', () => {
  it('checks the Basic credentials and the form fields of a token request', async () => {
    twin = await startTwin();
    const c = twin.credentials;
    const form = (overrides: Record<string, string>) =>
      new URLSearchParams({ client_id: c.clientId, grant_type: 'password', username: c.username, password: c.password, scope: 'api', ...overrides }).toString();
    const basic = (secret: string) => `Basic ${Buffer.from(`${c.clientId}:${secret}`).toString('base64')}`;
    const post = (authorization: string, body: string) =>
      fetch(`${twin?.baseUrl}/connect/token`, {
        method: 'POST',
        headers: { Authorization: authorization, 'Content-Type': 'application/x-www-form-urlencoded' },
        body,
      });
    expect((await post(basic('wrong'), form({}))).status).toBe(401);
    expect((await post(basic(c.apiSecret), form({ password: 'wrong' }))).status).toBe(400);
    expect((await post(basic(c.apiSecret), form({ grant_type: 'client_credentials' }))).status).toBe(400);
    expect((await post(basic(c.apiSecret), form({ scope: 'other' }))).status).toBe(400);
    const ok = await post(basic(c.apiSecret), form({}));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ access_token: expect.any(String), expires_in: 3600 });
  });

  it('issues tokens that expire', async () => {
    let now = 0;
    twin = await startTwin({ tokenTtlSeconds: 60, now: () => now });
    const token = await signIn(twin);
    expect((await api(twin, token, `/api/resellers/${twin.credentials.resellerId}/Organizations`)).status).toBe(200);
    now += 61_000;
    expect((await api(twin, token, `/api/resellers/${twin.credentials.resellerId}/Organizations`)).status).toBe(401);
  });

  it('generates the same data from the same seed, with groups, customer numbers and five currencies', async () => {
    twin = await startTwin({ seed: 7, organizations: 25 });
    const again = await startTwin({ seed: 7, organizations: 25 });
    try {
      expect(again.organizations.map((o) => o.orgId)).toEqual(twin.organizations.map((o) => o.orgId));
    } finally {
      await again.close();
    }
    expect(new Set(twin.organizations.map((o) => o.currency))).toEqual(new Set(['EUR', 'SEK', 'NOK', 'DKK', 'USD']));
    expect(twin.organizations.every((o) => o.organizationGroups.length === 2 && /^C-\d+$/.test(o.customerNumber))).toBe(true);
  });

  it('starts a report with 201, an empty body and an absolute location; polls give status 0 then 5 with data', async () => {
    twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 2, reportShape: 'bare', statusType: 'number' });
    const token = await signIn(twin);
    const start = await api(twin, token, `/api/resellers/${twin.credentials.resellerId}/billing/reports/MonthlyBillingPerOrganizationAsync`, {
      method: 'POST',
      body: JSON.stringify({ startDate: '2026-10-01', endDate: '2026-10-31' }),
    });
    expect(start.status).toBe(201);
    expect(start.headers.get('content-length')).toBe('0');
    const location = start.headers.get('location') ?? '';
    expect(location.startsWith(`${twin.baseUrl}/api/resellers/${twin.credentials.resellerId}/billing/reports/MonthlyBillingPerOrganizationAsync/`)).toBe(true);
    const poll = async () =>
      (await fetch(location, { headers: { Authorization: `Bearer ${token}` } })).json() as Promise<{ status: number; data: unknown[] | null }>;
    expect(await poll()).toEqual({ status: 0, data: null });
    expect(await poll()).toEqual({ status: 0, data: null });
    const done = await poll();
    expect(done.status).toBe(5);
    const entries = done.data as {
      billingDate: string;
      billingContentStartDate: string;
      organizations: { services: { currencyCode: string; customerCurrencyCode: string }[] }[];
    }[];
    expect(entries.map((entry) => entry.billingDate)).toEqual(['2026-10-01T00:00:00', '2026-10-07T00:00:00']);
    expect(entries[0]?.billingContentStartDate).toBe('2026-10-01T00:00:00');
    const services = entries.flatMap((entry) => entry.organizations.flatMap((o) => o.services));
    expect(services.some((s) => s.currencyCode !== s.customerCurrencyCode)).toBe(true);
  });

  it('uses both shapes the spec allows: status as a string and the result wrapped in an array', async () => {
    twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, reportShape: 'wrapped', statusType: 'string' });
    const token = await signIn(twin);
    const start = await api(twin, token, `/api/resellers/${twin.credentials.resellerId}/billing/reports/MonthlyBillingPerOrganizationAsync`, {
      method: 'POST',
      body: JSON.stringify({ startDate: '2026-10-01', endDate: '2026-10-31' }),
    });
    const body = (await (await fetch(start.headers.get('location') ?? '', { headers: { Authorization: `Bearer ${token}` } })).json()) as {
      status: string;
      data: unknown[];
    }[];
    expect(Array.isArray(body)).toBe(true);
    expect(body[0]?.status).toBe('5');
  });

  it('keeps every stated total equal to the exact sum of its parts, with 2–4 decimal places', async () => {
    twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, reportShape: 'bare' });
    const token = await signIn(twin);
    const start = await api(twin, token, `/api/resellers/${twin.credentials.resellerId}/billing/reports/MonthlyBillingPerOrganizationAsync`, {
      method: 'POST',
      body: JSON.stringify({ startDate: '2026-10-01', endDate: '2026-10-31' }),
    });
    const { data } = (await (await fetch(start.headers.get('location') ?? '', { headers: { Authorization: `Bearer ${token}` } })).json()) as {
      data: {
        organizations: { services: { totalResellerPrice: string; items: { totalResellerPrice: string; products: { totalResellerPrice: string }[] }[] }[] }[];
      }[];
    };
    const { Money } = await import('@shared/money');
    for (const service of data.flatMap((e) => e.organizations.flatMap((o) => o.services))) {
      expect(service.totalResellerPrice).toMatch(/^\d+\.\d{2,4}$/);
      const items = service.items.reduce((sum, item) => sum.plus(item.totalResellerPrice), new Money(0));
      expect(items.eq(service.totalResellerPrice)).toBe(true);
      for (const item of service.items) {
        expect(item.products.reduce((sum, p) => sum.plus(p.totalResellerPrice), new Money(0)).eq(item.totalResellerPrice)).toBe(true);
      }
    }
  });

  it('validates a new organization like a service would, including a customer number already in use', async () => {
    twin = await startTwin();
    const token = await signIn(twin);
    const path = `/api/resellers/${twin.credentials.resellerId}/Organizations`;
    const bad = await api(twin, token, path, {
      method: 'POST',
      body: JSON.stringify({ name: '', contact: { email: 'nope' }, address: { countryCode: 'Sweden' }, customerNumber: 'C-10001' }),
    });
    expect(bad.status).toBe(400);
    const problem = (await bad.json()) as { errors: Record<string, string[]> };
    expect(Object.keys(problem.errors).sort()).toEqual(['Address.CountryCode', 'Contact.Email', 'CustomerNumber', 'Name']);
    const good = await api(twin, token, path, {
      method: 'POST',
      body: JSON.stringify({ name: 'Fresh AB', contact: { email: 'it@fresh.example' }, address: { countryCode: 'SE' } }),
    });
    expect(good.status).toBe(201);
    const list = (await (await api(twin, token, path)).json()) as { name: string }[];
    expect(list.some((o) => o.name === 'Fresh AB')).toBe(true);
  });

  it('refuses another reseller id with 403', async () => {
    twin = await startTwin();
    const token = await signIn(twin);
    expect((await api(twin, token, '/api/resellers/00000000-0000-4000-8000-000000000000/Organizations')).status).toBe(403);
  });

  it('runs a bulk consumption task Queued → Processing → Successful and saves the records', async () => {
    let now = 0;
    twin = await startTwin({ taskQueuedMs: 1000, taskProcessingMs: 1000, now: () => now });
    const token = await signIn(twin);
    const metered = twin.organizations.flatMap((o) => o.services.flatMap((s) => s.subscriptions)).find((s) => s.metered && s.addons.length > 0);
    if (!metered) throw new Error('the twin data has no metered subscription with an add-on');
    const records = [
      { subscriptionId: metered.subscriptionId, isAddon: false, quantity: 12.5 },
      { subscriptionId: metered.subscriptionId, isAddon: true, addonId: metered.addons[0]?.addonId, quantity: 3 },
    ];
    const post = await api(twin, token, `/api/sellers/${twin.credentials.sellerId}/services/bulkconsumptions`, {
      method: 'POST',
      body: JSON.stringify({ consumptionRecords: records }),
    });
    expect(post.status).toBe(202);
    const { taskId, message } = (await post.json()) as { taskId: string; message: string };
    expect(message).toMatch(/queued/i);
    expect(post.headers.get('location')).toBe(`${twin.baseUrl}/api/sellers/${twin.credentials.sellerId}/services/bulkconsumptions/${taskId}`);
    const state = async () =>
      (await (await api(twin as Twin, token, `/api/sellers/${twin?.credentials.sellerId}/services/bulkconsumptions/${taskId}`)).json()) as {
        message: string;
        failedConsumptionRecords: unknown[];
      };
    expect((await state()).message).toBe('Queued');
    now = 1500;
    expect((await state()).message).toBe('Processing');
    now = 2500;
    expect(await state()).toEqual({ message: 'Successful', failedConsumptionRecords: [] });
    expect(twin.savedConsumption()).toHaveLength(2);
  });

  it('fails the whole task when one record is bad, lists one failure per bad record, and saves nothing', async () => {
    twin = await startTwin({ taskQueuedMs: 0, taskProcessingMs: 0 });
    const token = await signIn(twin);
    const metered = twin.organizations.flatMap((o) => o.services.flatMap((s) => s.subscriptions)).find((s) => s.metered && s.addons.length > 0);
    if (!metered) throw new Error('no metered subscription');
    const unknown = '11111111-2222-4333-8444-555555555555';
    const records = [
      { subscriptionId: metered.subscriptionId, isAddon: false, quantity: 1 },
      { subscriptionId: unknown, isAddon: false, quantity: 2 },
      { subscriptionId: metered.subscriptionId, isAddon: true, quantity: 3 },
      { subscriptionId: metered.subscriptionId, isAddon: false, addonId: metered.addons[0]?.addonId, quantity: 4 },
      { subscriptionId: metered.subscriptionId, isAddon: true, addonId: unknown, quantity: 5 },
    ];
    const post = await api(twin, token, `/api/sellers/${twin.credentials.sellerId}/services/bulkconsumptions`, {
      method: 'POST',
      body: JSON.stringify({ consumptionRecords: records }),
    });
    const { taskId } = (await post.json()) as { taskId: string };
    const result = (await (await api(twin, token, `/api/sellers/${twin.credentials.sellerId}/services/bulkconsumptions/${taskId}`)).json()) as {
      message: string;
      failedConsumptionRecords: { errorMessage: string; quantity: number }[];
    };
    expect(result.message).toBe('Failed');
    expect(result.failedConsumptionRecords.map((r) => r.quantity)).toEqual([2, 3, 4, 5]);
    expect(result.failedConsumptionRecords[0]?.errorMessage).toMatch(/does not exist for seller/);
    expect(twin.savedConsumption()).toHaveLength(0);
  });

  it('injects faults on request: 500, 429 with Retry-After, a dropped connection, malformed JSON', async () => {
    twin = await startTwin();
    const token = await signIn(twin);
    const path = `/api/resellers/${twin.credentials.resellerId}/Organizations`;
    twin.faults.add({ kind: 'status', status: 500, path: 'Organizations' });
    expect((await api(twin, token, path)).status).toBe(500);
    twin.faults.add({ kind: 'status', status: 429, retryAfterSeconds: 3, path: 'Organizations' });
    const limited = await api(twin, token, path);
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '3']);
    twin.faults.add({ kind: 'drop', path: 'Organizations' });
    await expect(api(twin, token, path)).rejects.toThrow();
    twin.faults.add({ kind: 'malformed', path: 'Organizations' });
    await expect((await api(twin, token, path)).json()).rejects.toThrow();
    expect((await api(twin, token, path)).status).toBe(200);
  });

  it('takes control requests only with its per-run token, answers a bad one with 400, and keeps running', async () => {
    twin = await startTwin();
    const token = await signIn(twin);
    const path = `/api/resellers/${twin.credentials.resellerId}/Organizations`;
    const control = (body: string, headers: Record<string, string> = { 'x-twin-control': (twin as Twin).controlToken }) =>
      fetch(`${(twin as Twin).baseUrl}/__twin/faults`, { method: 'POST', headers, body });
    const fault = JSON.stringify({ kind: 'status', status: 500, path: 'Organizations' });
    expect((await control(fault, {})).status).toBe(403);
    expect((await control(fault, { 'x-twin-control': 'guess' })).status).toBe(403);
    expect((await api(twin, token, path)).status).toBe(200); // nothing was injected
    for (const bad of ['{', 'null', '[]', '{"kind":"status","status":"x"}', '{"kind":"nope"}', JSON.stringify({ kind: 'slow', delayMs: -1 })]) {
      expect((await control(bad)).status, bad).toBe(400);
    }
    expect((await api(twin, token, path)).status).toBe(200); // still up
    expect((await control(fault)).status).toBe(204);
    expect((await api(twin, token, path)).status).toBe(500);
  });

  it('restates a month on a control request with its token, and answers a bad body with 400', async () => {
    twin = await startTwin({ reportReadyAfterMs: 0, reportReadyAfterPolls: 0, reportShape: 'bare', statusType: 'number', organizations: 20 });
    const token = await signIn(twin);
    const restate = (body: string, headers: Record<string, string> = { 'x-twin-control': (twin as Twin).controlToken }) =>
      fetch(`${(twin as Twin).baseUrl}/__twin/restate`, { method: 'POST', headers, body });
    const line = async () => {
      const start = await api(twin as Twin, token, `/api/resellers/${twin?.credentials.resellerId}/billing/reports/MonthlyBillingPerOrganizationAsync`, {
        method: 'POST',
        body: JSON.stringify({ startDate: '2026-11-01', endDate: '2026-11-30' }),
      });
      const { data } = (await (await fetch(start.headers.get('location') ?? '', { headers: { Authorization: `Bearer ${token}` } })).json()) as {
        data: { organizations: { services: { items: { subscriptionId: string; products: { productId: string; quantity: number }[] }[] }[] }[] }[];
      };
      const target = (twin as Twin).plantedChanges('2026-11').restatement;
      const items = data.flatMap((entry) => entry.organizations.flatMap((o) => o.services.flatMap((s) => s.items)));
      return items.find((item) => item.subscriptionId === target?.subscriptionId)?.products.find((product) => product.productId === target?.productId)
        ?.quantity;
    };
    const before = await line();
    expect(before).toBeGreaterThan(0);
    expect((await restate(JSON.stringify({ period: '2026-11' }), {})).status).toBe(403);
    for (const bad of ['{', '{}', '[]', '{"period":"2026-13"}', '{"period":"2026-11-01"}', '{"period":202611}', '{"period":"2026-11","extra":1}']) {
      expect((await restate(bad)).status, bad).toBe(400);
    }
    expect((await restate(JSON.stringify({ period: '2026-11' }), { 'x-twin-control': 'guess' })).status).toBe(403);
    expect(await line()).toBe(before); // nothing restated yet
    expect((await restate(JSON.stringify({ period: '2026-11' }))).status).toBe(204);
    expect(await line()).toBe((before as number) + 3);
    expect((await fetch(`${twin.baseUrl}/__twin/restate`)).status).toBe(405);
  });
});
