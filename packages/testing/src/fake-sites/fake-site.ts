import * as http from 'http';
import type { AddressInfo } from 'net';

/** A real HTTP server on 127.0.0.1 that records what it saw, for the enrichment integration tests. */
export interface FakeSite {
  port: number;
  /** every request, in arrival order */
  requests: Array<{ host: string; path: string; headers: http.IncomingHttpHeaders }>;
  /** TCP connections accepted: zero proves the client refused before connecting */
  connections: number;
  /** the most requests the server was answering at the same moment */
  maxInFlight: number;
  paths(): string[];
  close(): Promise<void>;
}

export type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

export async function startFakeSite(handler: Handler): Promise<FakeSite> {
  let inFlight = 0;
  const server = http.createServer((request, response) => {
    site.requests.push({ host: request.headers.host ?? '', path: request.url ?? '', headers: request.headers });
    inFlight++;
    site.maxInFlight = Math.max(site.maxInFlight, inFlight);
    let counted = true;
    const done = (): void => {
      if (counted) inFlight--;
      counted = false;
    };
    response.on('finish', done);
    response.on('close', done);
    handler(request, response);
  });
  server.on('connection', () => site.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const site: FakeSite = {
    port: (server.address() as AddressInfo).port,
    requests: [],
    connections: 0,
    maxInFlight: 0,
    paths: () => site.requests.map((request) => request.path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return site;
}

export function html(response: http.ServerResponse, body: string, status = 200): void {
  response.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8' });
  response.end(body);
}

export function notFound(response: http.ServerResponse): void {
  response.writeHead(404, { 'Content-Type': 'text/plain' });
  response.end('not found');
}

export function redirect(response: http.ServerResponse, location: string, status = 302): void {
  response.writeHead(status, { Location: location });
  response.end();
}

/** Resolves every name to loopback, like a hosts file: the only place test traffic may go. */
export function loopbackLookup(names?: Record<string, string[]>): (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>> {
  return async (hostname) => (names?.[hostname] ?? ['127.0.0.1']).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

/**
 * Streams `totalBytes` of filler after `head`, honouring back-pressure so that bytes count as
 * written only once the socket took them; stops when the client goes away.
 */
export function streamHuge(
  response: http.ServerResponse,
  head: string,
  totalBytes: number,
  tail: string,
  stats: { written: number; finished: boolean },
): void {
  response.writeHead(200, { 'Content-Type': 'text/html' });
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let closed = false;
  response.on('close', () => (closed = true));
  response.write(head);
  stats.written += head.length;
  const pump = (): void => {
    while (!closed && stats.written < totalBytes) {
      stats.written += chunk.length;
      if (!response.write(chunk)) {
        response.once('drain', pump);
        return;
      }
    }
    if (!closed) {
      response.end(tail);
      stats.finished = true;
    }
  };
  pump();
}
