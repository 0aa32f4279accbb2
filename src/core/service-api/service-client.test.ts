import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Twin } from '@testing/test-support';
import { FakeClock, twinWithClient } from '@testing/test-support';
import { ANSWER_LIMITS, jsonDepthOver, parseRetryAfter, ServiceClient } from './service-client';

let twin: Twin | undefined;
afterEach(async () => {
  await twin?.close();
  twin = undefined;
});

const clientConnection = {
  baseUrl: '',
  clientId: 'c',
  username: 'u',
  resellerId: 'r',
  sellerId: 's',
  readSecrets: async () => ({ apiSecret: 'a', password: 'p' }),
};
const orgsPath = (resellerId: string) => `/api/resellers/${resellerId}/Organizations`;
const anyJson = z.array(z.unknown());

/** Records every request the client makes, then passes it to the real fetch. */
function recordingFetch() {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetchImpl = (url: string, init?: RequestInit) => {
    calls.push({ url, init: init ?? {} });
    return fetch(url, init);
  };
  return { calls, fetchImpl };
}

describe('ServiceClient', () => {
  it('asks for a token exactly as spec §5 says and sends it as a bearer with the §5 headers', async () => {
    const setup = await twinWithClient();
    twin = setup.twin;
    const { calls, fetchImpl } = recordingFetch();
    const client = new ServiceClient(setup.connection, { fetch: fetchImpl, clock: new FakeClock() });
    await client.request({ method: 'GET', target: orgsPath(setup.connection.resellerId), schema: anyJson, retry: 'safe', what: 'orgs' });

    const [tokenCall, apiCall] = calls;
    expect(tokenCall?.url).toBe(`${twin.baseUrl}/connect/token`);
    const tokenHeaders = tokenCall?.init.headers as Record<string, string>;
    expect(tokenHeaders.Authorization).toBe(`Basic ${Buffer.from('ro.customer.client:demo-api-secret').toString('base64')}`);
    expect(tokenHeaders['Content-Type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(String(tokenCall?.init.body)))).toEqual({
      client_id: 'ro.customer.client',
      grant_type: 'password',
      username: 'finance@demo-broker.example',
      password: 'demo-password',
      scope: 'api',
    });
    const apiHeaders = apiCall?.init.headers as Record<string, string>;
    expect(apiHeaders.Authorization).toMatch(/^Bearer \S+$/);
    expect(apiHeaders['Content-Type']).toBe('application/json');
    expect(apiHeaders.Accept).toBe('application/json');
  });

  it('keeps the token in memory and reuses it', async () => {
    const setup = await twinWithClient();
    twin = setup.twin;
    const { calls, fetchImpl } = recordingFetch();
    const client = new ServiceClient(setup.connection, { fetch: fetchImpl, clock: new FakeClock() });
    for (let i = 0; i < 3; i++)
      await client.request({ method: 'GET', target: orgsPath(setup.connection.resellerId), schema: anyJson, retry: 'safe', what: 'orgs' });
    expect(calls.filter((call) => call.url.endsWith('/connect/token'))).toHaveLength(1);
  });

  it('asks for a new token once when the service answers 401, then succeeds', async () => {
    const setup = await twinWithClient();
    twin = setup.twin;
    const { calls, fetchImpl } = recordingFetch();
    const client = new ServiceClient(setup.connection, { fetch: fetchImpl, clock: new FakeClock() });
    await client.request({ method: 'GET', target: orgsPath(setup.connection.resellerId), schema: anyJson, retry: 'safe', what: 'orgs' });
    twin.expireTokens();
    const result = await client.request({ method: 'GET', target: orgsPath(setup.connection.resellerId), schema: anyJson, retry: 'safe', what: 'orgs' });
    expect(result.data.length).toBeGreaterThan(0);
    expect(calls.filter((call) => call.url.endsWith('/connect/token'))).toHaveLength(2);
  });

  it('gives up with an auth error when a fresh token is refused too', async () => {
    const setup = await twinWithClient();
    twin = setup.twin;
    twin.faults.add({ kind: 'status', status: 401, path: 'Organizations', times: 2 });
    await expect(
      setup.client.request({ method: 'GET', target: orgsPath(setup.connection.resellerId), schema: anyJson, retry: 'safe', what: 'orgs' }),
    ).rejects.toMatchObject({ code: 'auth' });
  });

  it('says the credentials were refused when the password is wrong', async () => {
    const setup = await twinWithClient();
    twin = setup.twin;
    const client = new ServiceClient(
      { ...setup.connection, readSecrets: async () => ({ apiSecret: 'demo-api-secret', password: 'wrong' }) },
      { fetch, clock: new FakeClock() },
    );
    const error = await client
      .request({ method: 'GET', target: orgsPath(setup.connection.resellerId), schema: anyJson, retry: 'safe', what: 'orgs' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'auth' });
    expect(String((error as Error).message)).toMatch(/refused the credentials/);
  });

  it('retries a GET after 500 and after 429, honouring Retry-After', async () => {
    const clock = new FakeClock();
    const setup = await twinWithClient({}, clock);
    twin = setup.twin;
    twin.faults.add({ kind: 'status', status: 500, path: 'Organizations' });
    twin.faults.add({ kind: 'status', status: 429, path: 'Organizations', retryAfterSeconds: 7 });
    const notices: number[] = [];
    const result = await setup.client.request({
      method: 'GET',
      target: orgsPath(setup.connection.resellerId),
      schema: anyJson,
      retry: 'safe',
      what: 'orgs',
      onRetry: (n) => notices.push(n.delayMs),
    });
    expect(result.data.length).toBeGreaterThan(0);
    expect(clock.sleeps).toEqual([1000, 7000]);
    expect(notices).toEqual([1000, 7000]);
  });

  it('retries a GET whose connection dropped, with growing backoff, then reports the network error', async () => {
    const clock = new FakeClock();
    const setup = await twinWithClient({}, clock);
    twin = setup.twin;
    twin.faults.add({ kind: 'drop', path: 'Organizations', times: 10 });
    await expect(
      setup.client.request({ method: 'GET', target: orgsPath(setup.connection.resellerId), schema: anyJson, retry: 'safe', what: 'orgs' }),
    ).rejects.toMatchObject({ code: 'network' });
    expect(clock.sleeps).toEqual([1000, 2000, 4000]);
  });

  it('never repeats a POST whose connection broke after sending: the outcome is unknown', async () => {
    const clock = new FakeClock();
    const setup = await twinWithClient({}, clock);
    twin = setup.twin;
    twin.faults.add({ kind: 'drop-after-processing', path: 'Organizations', method: 'POST' });
    const before = (await setup.client.request({ method: 'GET', target: orgsPath(setup.connection.resellerId), schema: anyJson, retry: 'safe', what: 'orgs' }))
      .data.length;
    await expect(
      setup.client.request({
        method: 'POST',
        target: orgsPath(setup.connection.resellerId),
        body: { name: 'Once Only AB', contact: { email: 'a@once.example' }, address: { countryCode: 'SE' } },
        schema: null,
        retry: 'unsafe',
        what: 'org',
      }),
    ).rejects.toMatchObject({ code: 'outcome-unknown' });
    const after = (await setup.client.request({ method: 'GET', target: orgsPath(setup.connection.resellerId), schema: anyJson, retry: 'safe', what: 'orgs' }))
      .data.length;
    expect(after).toBe(before + 1); // it did arrive, exactly once
    expect(clock.sleeps).toEqual([]);
  });

  it('does not retry a POST after a 500; after a gateway 502 or 504 it may have arrived', async () => {
    const setup = await twinWithClient();
    twin = setup.twin;
    const post = () =>
      setup.client.request({ method: 'POST', target: orgsPath(setup.connection.resellerId), body: {}, schema: null, retry: 'unsafe', what: 'org' });
    twin.faults.add({ kind: 'status', status: 500, path: 'Organizations', method: 'POST', times: 5 });
    await expect(post()).rejects.toMatchObject({ code: 'service' });
    expect(twin.faults.pending).toBe(1); // four faults left of five: one attempt only
    twin.faults.clear();
    for (const status of [502, 504]) {
      twin.faults.add({ kind: 'status', status, path: 'Organizations', method: 'POST', times: 5 });
      await expect(post()).rejects.toMatchObject({ code: 'outcome-unknown', message: expect.stringContaining(`HTTP ${status}`) });
      twin.faults.clear();
    }
  });

  it('reports a body that is not JSON as unreadable, and a wrong shape with the path of the bad field', async () => {
    const setup = await twinWithClient();
    twin = setup.twin;
    twin.faults.add({ kind: 'malformed', path: 'Organizations' });
    await expect(
      setup.client.request({ method: 'GET', target: orgsPath(setup.connection.resellerId), schema: anyJson, retry: 'safe', what: 'the organization list' }),
    ).rejects.toMatchObject({
      code: 'bad-response',
      message: expect.stringMatching(/organization list.*not JSON/),
    });
    const shape = z.array(z.object({ name: z.number() }));
    await expect(
      setup.client.request({ method: 'GET', target: orgsPath(setup.connection.resellerId), schema: shape, retry: 'safe', what: 'the organization list' }),
    ).rejects.toMatchObject({
      code: 'bad-response',
      message: expect.stringContaining('at 0.name'),
    });
  });

  it('times out a slow answer and says so', async () => {
    const setup = await twinWithClient();
    twin = setup.twin;
    twin.faults.add({ kind: 'slow', delayMs: 1500, path: 'Organizations', times: 5 });
    const client = new ServiceClient(setup.connection, { fetch, clock: new FakeClock(), timeoutMs: 200, maxAttempts: 2 });
    await expect(
      client.request({ method: 'GET', target: orgsPath(setup.connection.resellerId), schema: anyJson, retry: 'safe', what: 'orgs' }),
    ).rejects.toMatchObject({ code: 'timeout' });
  });

  it('downloads a body that trickles in for longer than the timeout, and times out only when it goes silent', async () => {
    const setup = await twinWithClient();
    twin = setup.twin;
    // A stand-in service whose body arrives in 6 chunks 100 ms apart: 600 ms in all, never 250 ms without a chunk.
    const trickle = (silentAfter: number) => async () =>
      new Response(
        new ReadableStream({
          async start(controller) {
            for (let chunk = 0; chunk < 6; chunk++) {
              await new Promise((resolve) => setTimeout(resolve, chunk === silentAfter ? 1_000 : 100));
              controller.enqueue(new TextEncoder().encode(`chunk ${chunk};`));
            }
            controller.close();
          },
        }),
        { status: 200 },
      );
    const collect = async (body: AsyncIterable<Uint8Array>) => {
      let text = '';
      for await (const chunk of body) text += new TextDecoder().decode(chunk);
      return text;
    };
    const tokenFirst = (answer: () => Promise<Response>) => async (url: string, init?: RequestInit) =>
      url.endsWith('/connect/token') ? fetch(url, init) : answer();
    const slowButSteady = new ServiceClient(setup.connection, {
      fetch: tokenFirst(trickle(-1)),
      clock: new FakeClock(),
      downloadTimeoutMs: 250,
      maxAttempts: 1,
    });
    await expect(slowButSteady.download({ target: '/report', what: 'the report', into: collect })).resolves.toBe(
      'chunk 0;chunk 1;chunk 2;chunk 3;chunk 4;chunk 5;',
    );
    // The message names the silence the download waited out, not the shorter one of an ordinary call.
    const silent = new ServiceClient(setup.connection, {
      fetch: tokenFirst(trickle(3)),
      clock: new FakeClock(),
      downloadTimeoutMs: 250,
      timeoutMs: 30_000,
      maxAttempts: 1,
    });
    await expect(silent.download({ target: '/report', what: 'the report', into: collect })).rejects.toMatchObject({
      code: 'timeout',
      message: expect.stringContaining('did not answer within 0.25 seconds') as unknown,
    });
  });

  it('refuses to send the token to another origin', async () => {
    const setup = await twinWithClient();
    twin = setup.twin;
    const { calls, fetchImpl } = recordingFetch();
    const client = new ServiceClient(setup.connection, { fetch: fetchImpl, clock: new FakeClock() });
    await expect(client.request({ method: 'GET', target: 'http://127.0.0.2:9/api/x', schema: null, retry: 'safe', what: 'x' })).rejects.toMatchObject({
      code: 'forbidden-origin',
    });
    expect(calls).toHaveLength(0);
    expect(client.resolve(`${twin.baseUrl}/api/y`)).toBe(`${twin.baseUrl}/api/y`);
  });

  it("reads a location header absolute or relative by HTTP rules, and only on the profile's origin", () => {
    const client = new ServiceClient({ ...clientConnection, baseUrl: 'https://billing.example.com/broker' }, { fetch, clock: new FakeClock() });
    expect(client.resolveLocation('https://billing.example.com/api/r/1')).toBe('https://billing.example.com/api/r/1');
    expect(client.resolveLocation('/api/r/1')).toBe('https://billing.example.com/api/r/1');
    expect(client.resolveLocation('reports/1')).toBe('https://billing.example.com/broker/reports/1');
    expect(() => client.resolveLocation('//evil.example/api')).toThrow(/not the profile's service/);
  });

  it('stops at once when cancelled', async () => {
    const setup = await twinWithClient();
    twin = setup.twin;
    const controller = new AbortController();
    controller.abort();
    await expect(
      setup.client.request({
        method: 'GET',
        target: orgsPath(setup.connection.resellerId),
        schema: anyJson,
        retry: 'safe',
        what: 'orgs',
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ code: 'cancelled' });
  });

  it("shares one token request between calls, and one call's cancel stops only that call", async () => {
    const setup = await twinWithClient();
    twin = setup.twin;
    let letTokenGo = () => {};
    const tokenHeld = new Promise<void>((resolve) => (letTokenGo = resolve));
    const { calls, fetchImpl } = recordingFetch();
    const gated = async (url: string, init?: RequestInit) => {
      if (url.endsWith('/connect/token')) await tokenHeld;
      return fetchImpl(url, init);
    };
    const client = new ServiceClient(setup.connection, { fetch: gated, clock: new FakeClock() });
    const organizations = (signal?: AbortSignal) =>
      client.request({ method: 'GET', target: orgsPath(setup.connection.resellerId), schema: anyJson, retry: 'safe', what: 'orgs', signal });
    const controller = new AbortController();
    const cancelledOne = organizations(controller.signal); // asks for the token
    const other = organizations(); // waits on the same request
    controller.abort();
    await expect(cancelledOne).rejects.toMatchObject({ code: 'cancelled' });
    letTokenGo();
    await expect(other).resolves.toMatchObject({ data: expect.any(Array) });
    expect(calls.filter((call) => call.url.endsWith('/connect/token'))).toHaveLength(1);
  });
});

describe('answers past ANSWER_LIMITS', () => {
  /** A client whose service signs in, then answers every other request with `answer`. */
  function hostileClient(answer: () => Response) {
    const fetchImpl = async (url: string) => (url.endsWith('/connect/token') ? Response.json({ access_token: 't' }) : answer());
    return new ServiceClient({ ...clientConnection, baseUrl: 'https://billing.example.com' }, { fetch: fetchImpl, clock: new FakeClock(), maxAttempts: 1 });
  }
  const list = { method: 'GET' as const, target: '/api/x', schema: anyJson, retry: 'safe' as const, what: 'the organization list' };
  /** A body of `bytes` bytes made as it is read, never held whole. */
  const long = (bytes: number) => {
    const block = new TextEncoder().encode('x'.repeat(1024 * 1024));
    let sent = 0;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('["'));
        if (sent >= bytes) return controller.close();
        sent += block.length;
        controller.enqueue(block);
      },
    });
  };

  it('refuses an answer nested past 64 levels before parsing it, in words, and reads one at the bound', async () => {
    for (const body of ['['.repeat(2_000_000) + ']'.repeat(2_000_000), `[{"a":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}]`]) {
      const started = performance.now();
      await expect(hostileClient(() => new Response(body)).request(list)).rejects.toThrow(
        'The service sent the organization list nested deeper than 64 levels, more than Closebook reads.',
      );
      expect(performance.now() - started).toBeLessThan(2_000);
    }
    const atBound = `${'['.repeat(ANSWER_LIMITS.depth)}"[{"${']'.repeat(ANSWER_LIMITS.depth)}`; // brackets in a text do not count
    expect((await hostileClient(() => new Response(atBound)).request(list)).data).toHaveLength(1);
    expect(jsonDepthOver('{"a":"\\"}', 1)).toBe(false);
    expect(jsonDepthOver('[[]]', 1)).toBe(true);
  });

  it('stops reading an answer past its size and refuses it; an error answer is read for its message only', async () => {
    const started = performance.now();
    await expect(hostileClient(() => new Response(long(ANSWER_LIMITS.answerBytes + 10 * 1024 * 1024))).request(list)).rejects.toThrow(
      `The service sent the organization list larger than 128 MB`,
    );
    const deepError = () => new Response(`{"message":"nope","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, { status: 409 });
    await expect(hostileClient(deepError).request(list)).rejects.toThrow(/^The service refused the change because it conflicts with existing data\.$/);
    await expect(hostileClient(() => new Response(long(ANSWER_LIMITS.answerBytes), { status: 500 })).request(list)).rejects.toMatchObject({ code: 'service' });
    expect(performance.now() - started).toBeLessThan(10_000);
    const token = new ServiceClient(
      { ...clientConnection, baseUrl: 'https://billing.example.com' },
      { fetch: async () => new Response(long(ANSWER_LIMITS.tokenBytes)), clock: new FakeClock(), maxAttempts: 1 },
    );
    await expect(token.signIn()).rejects.toThrow('The service sent a sign-in token larger than 1 MB');
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, and ignores nonsense', () => {
    const now = Date.parse('2026-11-09T08:00:00Z');
    expect(parseRetryAfter('12', now)).toBe(12_000);
    expect(parseRetryAfter('Mon, 09 Nov 2026 08:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
