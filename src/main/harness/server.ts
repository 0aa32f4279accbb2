import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { pipeline } from 'node:stream/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { Transform } from 'node:stream';
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
  /** This run's token: the page gets it as a cookie with the app; a program sends it as the x-closebook-bridge header. */
  token: string;
  service: Service;
  close(): Promise<void>;
}

/** The largest request body a contract call may have (a consumption file is at most 64 MB as base64). */
const MAX_INVOKE_BYTES = 80 * 1024 * 1024;
/** The largest file the page may upload (a shared report of a very large month). */
const MAX_UPLOAD_BYTES = 2 * 1024 * 1024 * 1024;
const TOKEN_COOKIE = 'closebook-bridge';

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
  let hosts = new Set<string>();
  const token = randomBytes(24).toString('base64url');
  const log: Logger = options.ports.log;

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      log.warn('bridge request failed', { error: error instanceof Error ? error.message : String(error) });
      if (!response.headersSent) response.writeHead(500).end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse) {
    // A page of another site whose name resolves to 127.0.0.1 (DNS rebinding) still names its own host.
    if (!hosts.has(String(request.headers.host ?? ''))) {
      response.writeHead(421).end();
      return;
    }
    const url = new URL(request.url ?? '/', origin);
    if (url.pathname.startsWith('/bridge/') && !trusted(request)) {
      response.writeHead(403).end();
      return;
    }
    if (request.method === 'POST' && url.pathname.startsWith('/bridge/invoke/')) {
      if (!String(request.headers['content-type']).startsWith('application/json')) {
        response.writeHead(415).end();
        return;
      }
      const channel = decodeURIComponent(url.pathname.slice('/bridge/invoke/'.length));
      let input: unknown;
      try {
        input = JSON.parse((await readBody(request, MAX_INVOKE_BYTES)) || '{}');
      } catch (error) {
        if (error instanceof BodyTooLarge) {
          response.writeHead(413).end();
          return;
        }
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
      if (Number(request.headers['content-length'] ?? 0) > MAX_UPLOAD_BYTES) {
        response.writeHead(413).end();
        return;
      }
      const id = randomUUID();
      // Under the name the user picked (so an import can say which file it came from), in a folder of its own.
      const path = join(uploadDir, id, uploadName(request.headers['x-file-name']));
      try {
        await mkdir(dirname(path), { mode: 0o700 });
        await pipeline(request, limited(MAX_UPLOAD_BYTES), createWriteStream(path, { mode: 0o600 }));
      } catch (error) {
        await rm(dirname(path), { recursive: true, force: true });
        if (!(error instanceof BodyTooLarge)) throw error;
        response.writeHead(413, { Connection: 'close' }).end();
        return;
      }
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

  /** The page of this run: its own origin (exactly) and this run's token (the cookie it got with the app, or the header). */
  function trusted(request: IncomingMessage): boolean {
    const sender = request.headers.origin ?? (request.headers.referer ? originOf(request.headers.referer) : undefined);
    if (sender !== undefined && sender !== origin) return false;
    const given = String(request.headers['x-closebook-bridge'] ?? cookie(request, TOKEN_COOKIE) ?? '');
    return given.length === token.length && timingSafeEqual(Buffer.from(given), Buffer.from(token));
  }

  async function serveStatic(pathname: string, response: ServerResponse) {
    const root = resolve(options.staticDir);
    let file: string;
    try {
      file = normalize(join(root, pathname === '/' ? 'index.html' : decodeURIComponent(pathname)));
    } catch {
      response.writeHead(400).end();
      return;
    }
    if (!file.startsWith(`${root}${sep}`)) {
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
      // The page's key to the bridge: sent back by the browser on its own requests only (never cross-site), unreadable by scripts.
      'Set-Cookie': `${TOKEN_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict`,
    });
    createReadStream(file).pipe(response);
  }

  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolvePromise());
  });
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);

  return {
    url: origin,
    token,
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

class BodyTooLarge extends Error {}

function readBody(request: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.destroy();
        reject(new BodyTooLarge());
      } else chunks.push(chunk);
    });
    request.on('end', () => resolvePromise(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** Passes a stream through until it exceeds `limit` bytes, then fails it. */
function limited(limit: number): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      callback(size > limit ? new BodyTooLarge() : null, size > limit ? undefined : chunk);
    },
  });
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid';
  }
}

function cookie(request: IncomingMessage, name: string): string | undefined {
  for (const part of String(request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/** The uploaded file's own name (sent URI-encoded by the page) as one safe path segment; "upload" when there is none. */
export function uploadName(header: string | string[] | undefined): string {
  let name = '';
  try {
    name = decodeURIComponent(typeof header === 'string' ? header : '');
  } catch {
    name = '';
  }
  const safe = name
    .replace(/^.*[\\/]/, '')
    .split('')
    .filter((character) => character.charCodeAt(0) >= 0x20 && character.charCodeAt(0) !== 0x7f) // no control characters
    .join('')
    .trim()
    .slice(0, 200);
  return safe === '' || safe === '.' || safe === '..' ? 'upload' : safe;
}
