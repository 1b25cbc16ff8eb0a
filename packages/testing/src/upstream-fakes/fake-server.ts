import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The common part of the fake upstreams: a real HTTP server on 127.0.0.1 (port 0) that records
 * every request and can be told to misbehave for the next requests, the way real upstreams do.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  /** parsed JSON body, or the raw text when it is not JSON */
  body: unknown;
  at: number;
}

export interface FakeResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** What the next request gets instead of a normal answer. */
export type Fault =
  /** an error status in the upstream's documented error shape, optionally with Retry-After */
  | { status: number; retryAfter?: string }
  /** 200 with a body that is not JSON */
  | 'malformed'
  /** headers and half a body, then nothing: the response never finishes */
  | 'hang';

export type ErrorBody = (status: number) => unknown;

export class FakeServer {
  readonly requests: RecordedRequest[] = [];
  private readonly faults: Fault[] = [];
  private persistent: Fault | null = null;
  private server: http.Server | null = null;
  url = '';
  /** how long every answer takes (an engine that probes a mail server is slow); 0: at once */
  latencyMs = 0;

  constructor(
    private readonly handle: (request: RecordedRequest) => FakeResponse,
    private readonly errorBody: ErrorBody,
  ) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => this.serve(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Queues faults: each is used up by one request, in order. */
  failNext(...faults: Fault[]): void {
    this.faults.push(...faults);
  }

  /** Makes every following request fail the same way (e.g. a persistent 503). */
  failAlways(fault: Fault): void {
    this.faults.length = 0;
    this.persistent = fault;
  }

  reset(): void {
    this.requests.length = 0;
    this.faults.length = 0;
    this.persistent = null;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {
        // kept as text: the handler decides whether that is an error
      }
      const url = new URL(req.url ?? '/', 'http://fake');
      const request: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        at: Date.now(),
      };
      this.requests.push(request);
      if (this.latencyMs > 0) setTimeout(() => this.reply(request, res), this.latencyMs);
      else this.reply(request, res);
    });
  }

  private reply(request: RecordedRequest, res: http.ServerResponse): void {
    const fault = this.faults.shift() ?? this.persistent;
    if (fault === 'hang') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial": ');
      return;
    }
    if (fault === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"this is": not json');
      return;
    }
    const answer = fault
      ? {
          status: fault.status,
          body: this.errorBody(fault.status),
          headers: fault.retryAfter === undefined ? undefined : { 'retry-after': fault.retryAfter },
        }
      : this.handle(request);
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  }
}

/** A small deterministic PRNG (mulberry32) seeded from a string, for stable fake rankings. */
export function seededRandom(seed: string): () => number {
  let h = 1779033703 ^ seed.length;
  for (let i = 0; i < seed.length; i++) {
    h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffled<T>(items: readonly T[], seed: string): T[] {
  const random = seededRandom(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Opaque paging tokens bound to the request they continue, as real upstreams issue them. */
export function makeToken(payload: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

export function readToken(token: unknown): Record<string, unknown> | null {
  if (typeof token !== 'string') return null;
  try {
    const value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
