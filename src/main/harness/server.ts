import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { pipeline } from 'node:stream/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';
import { createService, type DeliverFile, dispatch, FILE_MIME_TYPES, type Logger, type Ports, type Service } from '../core';
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
  // Files the page uploaded (a report to import), kept for this run only, by a random id.
  const uploadDir = await mkdtemp(join(tmpdir(), 'closebook-uploads-'));
  const uploads = new Map<string, string>();
  // Files handed to the page (exports): written here, served once at /bridge/files/<id>, then removed.
  const downloads = new Map<string, { path: string; fileName: string; mimeType: string }>();
  const deliver: DeliverFile = async (fileName, kind, write) => {
    const id = randomUUID();
    const path = join(uploadDir, `download-${id}`);
    await write(path);
    downloads.set(id, { path, fileName, mimeType: FILE_MIME_TYPES[kind] });
    return { kind: 'download', fileName, url: `/bridge/files/${id}` };
  };
  const service = createService({ ...options.ports, host: 'browser-bridge', deliver, uploadedFile: (id) => uploads.get(id) ?? null });
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
    if (request.method === 'GET' && url.pathname.startsWith('/bridge/files/')) {
      const file = downloads.get(url.pathname.slice('/bridge/files/'.length));
      if (!file) {
        response.writeHead(404).end();
        return;
      }
      downloads.delete(url.pathname.slice('/bridge/files/'.length));
      response.writeHead(200, {
        'Content-Type': file.mimeType,
        'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.fileName)}`,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
      });
      await pipeline(createReadStream(file.path), response);
      await rm(file.path, { force: true });
      return;
    }
    if (request.method === 'POST' && url.pathname === '/bridge/upload') {
      // The page sends the file's bytes as they are; they are streamed to disk, never held as one string.
      const id = randomUUID();
      const path = join(uploadDir, id);
      await pipeline(request, createWriteStream(path, { mode: 0o600 }));
      uploads.set(id, path);
      response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
      response.end(JSON.stringify({ upload: id }));
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
      await rm(uploadDir, { recursive: true, force: true });
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
