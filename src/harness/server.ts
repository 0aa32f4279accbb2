import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { pipeline } from 'node:stream/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { Transform } from 'node:stream';
import { createService, type DeliverFile, dispatch, FILE_MIME_TYPES, type Logger, type Ports, type Service } from '@core';
import { BIDI_CONTROLS } from '@shared/file-names';
import { CONTENT_SECURITY_POLICY } from '@main/window';
import { errorMessage } from '@shared/error-message';

export interface HarnessOptions {
  port?: number;
  /** The built renderer (out/renderer). */
  staticDir: string;
  ports: Omit<Ports, 'host'>;
  /** The largest upload (2 GB); tests set a small one. */
  maxUploadBytes?: number;
}

export interface Harness {
  url: string;
  /** The link to print for the user: opening it gives that browser this run's session, once. */
  link: string;
  /** For programs in this process (tests): sent as the x-closebook-bridge header, with the bridge's Origin. Never printed. */
  token: string;
  service: Service;
  close(): Promise<void>;
}

/** The largest request body a contract call may have (a consumption file is at most 64 MB as base64). */
const MAX_INVOKE_BYTES = 80 * 1024 * 1024;
/** The largest file the page may upload (a shared report of a very large month). */
const MAX_UPLOAD_BYTES = 2 * 1024 * 1024 * 1024;

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
 * to loopback, and answers calls only from its own page in the browser that opened the one-time link it printed.
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
  let host = '';
  let sessionCookie = '';
  const token = randomBytes(24).toString('base64url');
  // The printed link's secret: spent on first use, so a link left in a terminal or a browser's history opens nothing.
  let linkCode: string | null = randomBytes(24).toString('base64url');
  let session: string | null = null;
  const maxUploadBytes = options.maxUploadBytes ?? MAX_UPLOAD_BYTES;
  const log: Logger = options.ports.log;

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      log.warn('bridge request failed', { error: errorMessage(error) });
      if (!response.headersSent) refuse(response, 500, 'Closebook could not answer this request; its log says why.');
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse) {
    // A page of another site whose name resolves to 127.0.0.1 (DNS rebinding) still names its own host.
    if (request.headers.host !== host) return refuse(response, 421, `Closebook's browser bridge answers only at ${origin}/ (the address it printed).`);
    const target = request.url ?? '';
    let url: URL;
    let path: string;
    try {
      if (!target.startsWith('/')) throw new URIError();
      url = new URL(`${origin}${target}`);
      path = decodeURIComponent(url.pathname);
    } catch {
      return refuse(response, 400, 'The address is not valid (a bad % escape?).');
    }
    if (request.method === 'GET' && path === '/open') return openSession(url, response);
    if (path.startsWith('/bridge/') && !trusted(request)) {
      return refuse(
        response,
        403,
        'Closebook answers only its own page, in the browser that opened its one-time link. Open the link it printed at start, or restart it for a new one.',
      );
    }
    if (request.method === 'POST' && path.startsWith('/bridge/invoke/')) {
      if (!String(request.headers['content-type']).startsWith('application/json')) return refuse(response, 415, 'A call must be sent as application/json.');
      if (Number(request.headers['content-length'] ?? 0) > MAX_INVOKE_BYTES) return tooLarge(response, MAX_INVOKE_BYTES);
      const body = await readBody(request, MAX_INVOKE_BYTES);
      if (body === null) return tooLarge(response, MAX_INVOKE_BYTES);
      let input: unknown;
      try {
        input = JSON.parse(body || '{}');
      } catch {
        input = Symbol('unreadable');
      }
      const reply = await dispatch(service, path.slice('/bridge/invoke/'.length), input, log);
      response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
      response.end(JSON.stringify(reply));
      return;
    }
    if (request.method === 'GET' && path.startsWith('/bridge/files/')) {
      const id = path.slice('/bridge/files/'.length);
      const file = downloads.get(id);
      if (!file) return refuse(response, 404, 'This file has been downloaded already, or never existed.');
      downloads.delete(id);
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
    if (request.method === 'POST' && path === '/bridge/upload') {
      if (Number(request.headers['content-length'] ?? 0) > maxUploadBytes) return tooLarge(response, maxUploadBytes);
      const id = randomUUID();
      // Under the name the user picked (so an import can say which file it came from), in a folder of its own.
      const file = join(uploadDir, id, uploadName(request.headers['x-file-name']));
      // The page sends the file's bytes as they are; they are streamed to disk, never held as one string.
      const cap = capped(maxUploadBytes);
      try {
        await mkdir(dirname(file), { mode: 0o700 });
        await pipeline(request, cap, createWriteStream(file, { mode: 0o600 }));
      } catch (error) {
        await rm(dirname(file), { recursive: true, force: true });
        throw error;
      }
      if (cap.over()) {
        await rm(dirname(file), { recursive: true, force: true });
        return tooLarge(response, maxUploadBytes);
      }
      uploads.set(id, file);
      response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
      response.end(JSON.stringify({ upload: id }));
      return;
    }
    if (request.method === 'GET' && path === '/bridge/events') {
      response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
      response.write(': connected\n\n');
      streams.add(response);
      request.on('close', () => streams.delete(response));
      return;
    }
    if (request.method === 'GET' && !path.startsWith('/bridge/')) return serveStatic(path, response);
    refuse(response, path.startsWith('/bridge/') ? 404 : 405, 'Closebook has nothing here.');
  }

  /** The printed link: its code is exchanged once for a fresh session cookie, then the browser goes to `/` without it. */
  function openSession(url: URL, response: ServerResponse) {
    if (linkCode === null || !same(url.searchParams.get('token'), linkCode)) {
      return refuse(
        response,
        403,
        `This Closebook link works once and has been used. In the browser that opened it, go to ${origin}/ — or stop Closebook and start it again for a new link.`,
      );
    }
    linkCode = null;
    session = randomBytes(24).toString('base64url');
    response.writeHead(303, {
      Location: '/',
      'Cache-Control': 'no-store',
      // Sent back by the browser to this host only, never with a request another site starts, unreadable by scripts.
      'Set-Cookie': `${sessionCookie}=${session}; Path=/; HttpOnly; SameSite=Strict`,
    });
    response.end();
  }

  /**
   * This run's page: the session cookie (or, for a program, the token header) AND the bridge's exact origin. The
   * cookie alone is not enough: cookies are not scoped by port, so a page of another loopback port sends it too.
   */
  function trusted(request: IncomingMessage): boolean {
    const sender = request.headers.origin;
    // Browsers leave Origin out of a same-origin GET (the event stream, a download) but always send Sec-Fetch-Site,
    // which no script can set; for a page of another loopback port it says 'same-site', not 'same-origin'.
    const ownPage = sender !== undefined ? sender === origin : request.headers['sec-fetch-site'] === 'same-origin';
    const header = request.headers['x-closebook-bridge'];
    return ownPage && (same(typeof header === 'string' ? header : undefined, token) || cookies(request, sessionCookie).some((value) => same(value, session)));
  }

  /** The renderer's own files, to anyone on this host: they hold no secret, and never carry the session. */
  async function serveStatic(path: string, response: ServerResponse) {
    const root = resolve(options.staticDir);
    const file = normalize(join(root, path === '/' ? 'index.html' : path));
    const info = file.startsWith(`${root}${sep}`) ? await stat(file).catch(() => null) : null;
    if (!info?.isFile()) return refuse(response, 404, 'Closebook has no such file.');
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
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  host = `127.0.0.1:${port}`;
  // Named by port: two bridges in one browser (cookies are not scoped by port) keep a session each.
  sessionCookie = `closebook-session-${port}`;

  return {
    url: origin,
    link: `${origin}/open?token=${linkCode}`,
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

/** A short plain answer: a refusal says why, and never carries a CORS header (another origin may not read it). */
function refuse(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  response.end(`${message}\n`);
}

function tooLarge(response: ServerResponse, limit: number): void {
  // Closed after the answer: a client that declared a body too large may still be sending it, and it is not read.
  response.shouldKeepAlive = false;
  const size = limit >= 2 ** 30 ? `${limit / 2 ** 30} GB` : limit >= 2 ** 20 ? `${Math.floor(limit / 2 ** 20)} MB` : `${limit} bytes`;
  refuse(response, 413, `The request is larger than Closebook accepts (${size}).`);
}

/** Equal secrets, compared in constant time; a missing one is never equal. Lengths in bytes: a header may hold 'é'. */
function same(given: string | null | undefined, expected: string | null): boolean {
  if (typeof given !== 'string' || expected === null) return false;
  const [a, b] = [Buffer.from(given), Buffer.from(expected)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The request's body as text, or null when it is over `limit` bytes. The rest is read and dropped rather than the
 * connection reset, so the client gets the 413.
 */
async function readBody(request: IncomingMessage, limit: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
    else chunks.length = 0;
  }
  return size > limit ? null : Buffer.concat(chunks).toString('utf8');
}

/** Passes a stream through up to `limit` bytes and drops the rest (for the same reason); `over()` says if there was more. */
function capped(limit: number): Transform & { over(): boolean } {
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      callback(null, size > limit ? undefined : chunk);
    },
  });
  return Object.assign(stream, { over: () => size > limit });
}

/** Every value sent under `name`: a page of another loopback port can add a same-named cookie, which must not hide the real one. */
function cookies(request: IncomingMessage, name: string): string[] {
  return String(request.headers.cookie ?? '')
    .split(';')
    .map((part) => part.trim().split('='))
    .filter(([key]) => key === name)
    .map(([, ...value]) => value.join('='));
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
    .replace(BIDI_CONTROLS, '') // a name that shows other than it is
    .split('')
    .filter((character) => character.charCodeAt(0) >= 0x20 && character.charCodeAt(0) !== 0x7f) // no control characters
    .join('')
    .trim()
    .slice(0, 200);
  return safe === '' || safe === '.' || safe === '..' ? 'upload' : safe;
}
