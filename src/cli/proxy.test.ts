import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineConnection, runCliProcess, useSimulator } from '@testing/cli-test-support';

const simulator = useSimulator(['--organizations', '3']);

/** A forwarding proxy on loopback (plain requests and CONNECT tunnels), counting what went through it. */
let proxy: Server;
let proxyUrl = '';
const seen: string[] = [];
beforeAll(async () => {
  proxy = createServer((incoming, outgoing) => {
    seen.push(`${incoming.method} ${incoming.url}`);
    const target = new URL(incoming.url ?? '');
    const forwarded = httpRequest(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    incoming.pipe(forwarded);
  });
  proxy.on('connect', (incoming, socket, head) => {
    seen.push(`CONNECT ${incoming.url}`);
    const [host, port] = (incoming.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

describe('the CLI behind a proxy', () => {
  it('sends its requests through HTTPS_PROXY / HTTP_PROXY, and straight to the hosts NO_PROXY names', async () => {
    const through = await runCliProcess(['orgs', 'list', '--json', ...inlineConnection(simulator.baseUrl)], simulator.dataDir, {
      HTTP_PROXY: proxyUrl,
      HTTPS_PROXY: proxyUrl,
    });
    expect(through.code).toBe(0);
    expect(JSON.parse(through.stdout)).toHaveLength(3);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.join('\n')).toContain(new URL(simulator.baseUrl).port);

    seen.length = 0;
    const direct = await runCliProcess(['orgs', 'list', '--json', ...inlineConnection(simulator.baseUrl)], simulator.dataDir, {
      HTTP_PROXY: proxyUrl,
      HTTPS_PROXY: proxyUrl,
      NO_PROXY: '127.0.0.1',
    });
    expect(direct.code).toBe(0);
    expect(seen).toEqual([]);
  }, 60_000);
});
