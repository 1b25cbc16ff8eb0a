import * as http from 'http';
import * as https from 'https';
import { isIP, type LookupFunction } from 'net';
import type { Transform } from 'stream';
import { TextDecoder } from 'util';
import * as zlib from 'zlib';

export type LookupFn = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

/** What may be connected to. Production derives it from allowPrivateNetworks; tests substitute their own. */
export interface NetworkPolicy {
  isForbiddenAddress(ip: string): boolean;
  isAllowedPort(port: number): boolean;
}

export interface SafeFetchOptions {
  policy: NetworkPolicy;
  lookup: LookupFn;
  userAgent: string;
  accept: string;
  /** cap on the bytes read from the wire and, separately, on the decompressed bytes kept */
  maxBytes: number;
  maxRedirects: number;
  /** aborting it ends the fetch; a body being read is returned as far as it got */
  signal: AbortSignal;
  /** whether a response of this media type (lower-case, no parameters) is worth reading */
  wantsBody(mediaType: string): boolean;
  /** asked before every hop, redirects included (robots.txt); false ends the fetch */
  mayRequest?(url: URL): Promise<boolean>;
  /** runs one hop (connect, request, read) while holding the host's slot */
  withHost?<T>(hostname: string, task: () => Promise<T>): Promise<T>;
  /** kept-alive connections to reuse (one pool per policy: its owner's); absent, a fresh connection per request */
  agents?: AgentPool;
}

/**
 * Kept-alive connections through the guard (decision 037). An agent per scheme, hostname, port and the
 * addresses that hostname was resolved to and checked against: a pooled socket is only ever reused for a request
 * whose own resolution and check gave the same addresses, under the same owner's policy (a pool belongs to one
 * enricher). Bounded: the least recently used agent is closed beyond `maxAgents`.
 */
export class AgentPool {
  private readonly agents = new Map<string, http.Agent>();
  private readonly maxSocketsPerHost: number;
  private readonly maxAgents: number;

  constructor(options: { maxSocketsPerHost: number; maxAgents?: number }) {
    this.maxSocketsPerHost = Math.max(1, options.maxSocketsPerHost);
    this.maxAgents = Math.max(1, options.maxAgents ?? 256);
  }

  agentFor(secure: boolean, hostname: string, port: number, addresses: ReadonlyArray<{ address: string }>): http.Agent {
    const key = `${secure ? 'https' : 'http'}|${hostname}|${port}|${addresses.map((a) => a.address).join(',')}`;
    let agent = this.agents.get(key);
    if (agent) {
      // most recently used last
      this.agents.delete(key);
      this.agents.set(key, agent);
      return agent;
    }
    const settings = {
      keepAlive: true,
      keepAliveMsecs: 1_000,
      maxSockets: this.maxSocketsPerHost,
      maxFreeSockets: this.maxSocketsPerHost,
      timeout: 10_000,
    };
    agent = secure ? new https.Agent(settings) : new http.Agent(settings);
    this.agents.set(key, agent);
    if (this.agents.size > this.maxAgents) {
      const [oldest, evicted] = this.agents.entries().next().value as [string, http.Agent];
      this.agents.delete(oldest);
      evicted.destroy();
    }
    return agent;
  }

  get size(): number {
    return this.agents.size;
  }

  destroy(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}

export interface FetchedResponse {
  /** the URL that answered, after redirects */
  url: URL;
  status: number;
  mediaType: string;
  /** null when the status is not 2xx or the media type was not wanted */
  body: string | null;
  /** bytes read from the wire (still compressed) */
  bytesRead: number;
  /** the body was cut at maxBytes or by the signal */
  truncated: boolean;
}

export type FetchErrorCode =
  | 'invalid_url'
  | 'unsupported_scheme'
  | 'forbidden_port'
  | 'forbidden_address'
  | 'dns_failed'
  | 'too_many_redirects'
  | 'disallowed_by_robots'
  | 'aborted'
  | 'network_error';

export class FetchError extends Error {
  constructor(
    readonly code: FetchErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * GET a URL that came from a third party: every hop is checked against the network policy after
 * our own DNS resolution, and the socket is pinned to the checked addresses so a second resolution
 * (DNS rebinding) cannot send it elsewhere. Never follows more than maxRedirects.
 */
export async function safeFetch(input: string | URL, options: SafeFetchOptions): Promise<FetchedResponse> {
  let url = toUrl(input);
  for (let hop = 0; ; hop++) {
    if (options.signal.aborted) throw new FetchError('aborted', 'aborted');
    if (options.mayRequest && !(await options.mayRequest(url))) {
      throw new FetchError('disallowed_by_robots', `robots.txt disallows ${url.pathname}`);
    }
    const current = url;
    const run = (): Promise<FetchedResponse | URL> => requestOnce(current, options);
    const outcome = options.withHost ? await options.withHost(current.hostname, run) : await run();
    if (!(outcome instanceof URL)) return outcome;
    if (hop >= options.maxRedirects) throw new FetchError('too_many_redirects', `more than ${options.maxRedirects} redirects`);
    url = outcome;
  }
}

function toUrl(input: string | URL): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new FetchError('invalid_url', 'not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchError('unsupported_scheme', `${url.protocol} is not fetched`);
  url.hash = '';
  // credentials in a third-party URL are never ours to send
  url.username = '';
  url.password = '';
  return url;
}

/** One request; resolves to the response, or to the next URL when it is a redirect. */
async function requestOnce(url: URL, options: SafeFetchOptions): Promise<FetchedResponse | URL> {
  const addresses = await resolveChecked(url, options);
  const secure = url.protocol === 'https:';
  const port = url.port ? Number(url.port) : secure ? 443 : 80;
  if (!options.policy.isAllowedPort(port)) throw new FetchError('forbidden_port', `port ${port} is not allowed`);

  const hostname = bareHostname(url);
  const pinnedLookup: LookupFunction = (_name, lookupOptions, callback) => {
    const first = addresses[0] ?? { address: '', family: 4 };
    if (lookupOptions.all) callback(null, addresses);
    else callback(null, first.address, first.family);
  };
  const requestOptions: https.RequestOptions = {
    hostname,
    port,
    path: `${url.pathname}${url.search}`,
    method: 'GET',
    headers: {
      Host: url.host,
      'User-Agent': options.userAgent,
      Accept: options.accept,
      'Accept-Encoding': 'gzip, deflate, br',
    },
    // a pooled socket only for the same checked addresses under the same owner's policy (AgentPool); else a fresh one
    agent: options.agents ? options.agents.agentFor(secure, hostname, port, addresses) : false,
    lookup: pinnedLookup,
    signal: options.signal,
    ...(secure && isIP(hostname) === 0 ? { servername: hostname } : {}),
  };

  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const request = (secure ? https : http).request(requestOptions);
    request.on('response', resolve);
    // stays attached for the whole exchange: a late socket error must not become an unhandled event
    request.on('error', (error) =>
      reject(options.signal.aborted ? new FetchError('aborted', 'aborted') : new FetchError('network_error', error.message)),
    );
    request.end();
  });

  const status = response.statusCode ?? 0;
  const location = response.headers.location;
  if (REDIRECT_STATUSES.has(status) && location) {
    discard(response);
    let next: URL;
    try {
      next = toUrl(new URL(location, url));
    } catch (error) {
      throw error instanceof FetchError ? error : new FetchError('invalid_url', 'invalid redirect location');
    }
    return next;
  }

  const mediaType = (response.headers['content-type'] ?? 'text/html').split(';')[0]?.trim().toLowerCase() || 'text/html';
  const decoder = createDecoder(response.headers['content-encoding']);
  if (status < 200 || status > 299 || !options.wantsBody(mediaType) || decoder === undefined) {
    discard(response);
    return { url, status, mediaType, body: null, bytesRead: 0, truncated: false };
  }
  const read = await readCapped(response, decoder, options.maxBytes, options.signal);
  const body = decodeText(read.bytes, response.headers['content-type']);
  return { url, status, mediaType, body, bytesRead: read.bytesRead, truncated: read.truncated };
}

// A body not wanted (a redirect's, a 404's, a robots.txt that is missing) is read off the wire and dropped when
// it is this small, so a kept-alive connection survives it (decision 037): a site's robots.txt is often a 404,
// and a destroyed socket would make its home page open a second connection. A longer one is cut.
const DISCARDED_BODY_BYTES = 16 * 1024;

/** Lets a response's small unwanted body end (the socket goes back to its pool), or destroys it. */
function discard(response: http.IncomingMessage): void {
  const declared = Number(response.headers['content-length'] ?? NaN);
  if (declared > DISCARDED_BODY_BYTES) {
    response.destroy();
    return;
  }
  let seen = 0;
  response.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DISCARDED_BODY_BYTES) response.destroy();
  });
  response.on('error', () => undefined);
  response.resume();
}

function bareHostname(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** The URL's host resolved, every address checked against the policy (webhooks reuse it, decision 016). */
export async function resolveChecked(
  url: URL,
  options: Pick<SafeFetchOptions, 'policy' | 'lookup' | 'signal'>,
): Promise<Array<{ address: string; family: 4 | 6 }>> {
  const hostname = bareHostname(url);
  const literal = isIP(hostname);
  let addresses: Array<{ address: string; family: 4 | 6 }>;
  if (literal !== 0) {
    addresses = [{ address: hostname, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      // a lookup cannot be cancelled, only stopped waiting for
      addresses = await raceAbort(options.lookup(hostname), options.signal);
    } catch (error) {
      if (options.signal.aborted) throw new FetchError('aborted', 'aborted');
      throw new FetchError('dns_failed', `cannot resolve host: ${error instanceof Error ? error.message : 'unknown error'}`);
    }
  }
  if (addresses.length === 0) throw new FetchError('dns_failed', 'host has no addresses');
  // one bad address is enough: we cannot know which one a later connection would use
  if (addresses.some((entry) => options.policy.isForbiddenAddress(entry.address))) {
    throw new FetchError('forbidden_address', 'host resolves to a non-public address');
  }
  return addresses;
}

/** null: identity; undefined: an encoding we cannot decode (so the body is useless). */
function createDecoder(contentEncoding: string | undefined): Transform | null | undefined {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return null;
  // SYNC_FLUSH on finish: a body we cut short still yields the text decoded so far, without an error
  if (encoding === 'gzip' || encoding === 'x-gzip' || encoding === 'deflate') {
    return zlib.createUnzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
  }
  if (encoding === 'br') return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
  return undefined;
}

interface CappedRead {
  bytes: Buffer;
  bytesRead: number;
  truncated: boolean;
}

/**
 * Streams the body, destroying the response once maxBytes came off the wire or maxBytes were
 * decompressed (a small gzip can expand enormously). Never rejects: whatever was read is returned.
 */
function readCapped(response: http.IncomingMessage, decoder: Transform | null, maxBytes: number, signal: AbortSignal): Promise<CappedRead> {
  return new Promise<CappedRead>((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let bytesRead = 0;
    let truncated = false;
    let inputEnded = false;
    let done = false;

    const finish = (): void => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      response.destroy();
      decoder?.destroy();
      resolve({ bytes: Buffer.concat(chunks, kept), bytesRead, truncated });
    };
    const onAbort = (): void => {
      truncated = true;
      finish();
    };
    const keep = (chunk: Buffer): void => {
      if (done) return;
      const room = maxBytes - kept;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      kept += Math.min(chunk.length, room);
      if (kept >= maxBytes) {
        truncated = true;
        finish();
      }
    };
    const endInput = (): void => {
      if (inputEnded || done) return;
      inputEnded = true;
      if (decoder) decoder.end();
      else finish();
    };

    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (decoder) {
      decoder.on('data', keep);
      decoder.on('end', finish);
      decoder.on('error', finish);
    }
    response.on('data', (chunk: Buffer) => {
      if (done || inputEnded) return;
      const room = maxBytes - bytesRead;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      bytesRead += part.length;
      if (!decoder) keep(part);
      else if (!decoder.write(part)) {
        response.pause();
        decoder.once('drain', () => response.resume());
      }
      if (bytesRead >= maxBytes && !done) {
        truncated = true;
        response.destroy();
        endInput();
      }
    });
    response.on('end', endInput);
    // a connection lost mid-body: keep what arrived
    response.on('close', endInput);
    response.on('error', endInput);
  });
}

function decodeText(bytes: Buffer, contentType: string | undefined): string {
  const label = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** Settles with `promise`, or rejects with `signal.reason` first if the signal aborts (the work itself is not stopped). */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
