import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';
import { createService, dispatch, type Logger, type Ports, type Service } from '../core';
import { CONTENT_SECURITY_POLICY } from '../window';

export interface HarnessOptions {
  port?: number;
  /** The built renderer (out/renderer). */
  staticDir: string;
  ports: Omit<Ports, 'host'>;
}

export interface Harness {
  url: string;
  service: Service;
  close(): Promise<void>;
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

/**
 * The browser test bridge: serves the built renderer and the same contract over HTTP, backed by the same service
 * and the same dispatch (input and output parsed) as Electron's IPC. A test and development host only: it binds
 * to loopback and accepts requests from its own origin only.
 */
export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const service = createService({ ...options.ports, host: 'browser-bridge' });
  await service.start();
  const streams = new Set<ServerResponse>();
  const unsubscribe = service.events.subscribe((event, payload) => {
    const line = `data: ${JSON.stringify({ event, payload })}\n\n`;
    for (const stream of streams) stream.write(line);
  });
  let origin = '';
  const log: Logger = options.ports.log;

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      log.warn('bridge request failed', { error: error instanceof Error ? error.message : String(error) });
      if (!response.headersSent) response.writeHead(500).end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', origin);
    if (url.pathname.startsWith('/bridge/')) {
      // Another page open in the same browser must not drive the bridge: same origin only.
      const sender = request.headers.origin ?? request.headers.referer;
      if (sender && !sender.startsWith(origin)) {
        response.writeHead(403).end();
        return;
      }
    }
    if (request.method === 'POST' && url.pathname.startsWith('/bridge/invoke/')) {
      if (!String(request.headers['content-type']).startsWith('application/json')) {
        response.writeHead(415).end();
        return;
      }
      const channel = decodeURIComponent(url.pathname.slice('/bridge/invoke/'.length));
      let input: unknown;
      try {
        input = JSON.parse((await readBody(request)) || '{}');
      } catch {
        input = Symbol('unreadable');
      }
      const reply = await dispatch(service, channel, input, log);
      response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
      response.end(JSON.stringify(reply));
      return;
    }
    if (request.method === 'GET' && url.pathname === '/bridge/events') {
      response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
      response.write(': connected\n\n');
      streams.add(response);
      request.on('close', () => streams.delete(response));
      return;
    }
    if (request.method === 'GET') return serveStatic(url.pathname, response);
    response.writeHead(405).end();
  }

  async function serveStatic(pathname: string, response: ServerResponse) {
    const root = resolve(options.staticDir);
    const file = normalize(join(root, pathname === '/' ? 'index.html' : decodeURIComponent(pathname)));
    if (!file.startsWith(root)) {
      response.writeHead(404).end();
      return;
    }
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, {
      'Content-Type': MIME[extname(file)] ?? 'application/octet-stream',
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
    });
    createReadStream(file).pipe(response);
  }

  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolvePromise());
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: origin,
    service,
    close: async () => {
      unsubscribe();
      for (const stream of streams) stream.end();
      await service.dispose();
      await new Promise<void>((resolvePromise) => {
        server.closeAllConnections();
        server.close(() => resolvePromise());
      });
    },
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolvePromise(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
