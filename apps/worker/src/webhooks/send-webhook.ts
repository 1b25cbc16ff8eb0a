import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { FetchError, isForbiddenAddress, resolveWebhookTarget, type NetworkPolicy } from '@leadgen/network-guard';
import type { AttemptResult } from '@leadgen/db';

const EXCERPT_BYTES = 1024;

export interface SendOptions {
  policy: NetworkPolicy;
  timeoutMs: number;
  userAgent: string;
}

/**
 * One attempt: POST the body to the URL through the crawler's SSRF guard (the host resolved by us,
 * every address checked, the socket pinned to them: a second resolution cannot send it elsewhere),
 * redirects not followed, the whole exchange within `timeoutMs`, the answer's first KiB kept.
 * Never throws: whatever happened is the attempt's result.
 */
/** An attempt's result, and whether the target resolved to a private, loopback or link-local address. */
export type SentAttempt = AttemptResult & { privateTarget: boolean };

export async function sendWebhook(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<SentAttempt> {
  const startedAt = new Date();
  const signal = AbortSignal.timeout(options.timeoutMs);
  let privateTarget = false;
  const result = (fields: Partial<AttemptResult>): SentAttempt => ({
    privateTarget,
    url: rawUrl,
    startedAt,
    responseStatus: null,
    latencyMs: Date.now() - startedAt.getTime(),
    responseExcerpt: null,
    error: null,
    succeeded: false,
    ...fields,
  });
  try {
    const url = new URL(rawUrl);
    const addresses = await resolveWebhookTarget(url, { policy: options.policy, signal });
    // Reachable only where WEBHOOK_ALLOW_PRIVATE_NETWORKS lets the guard pass such addresses.
    privateTarget = addresses.some((a) => isForbiddenAddress(a.address));
    const secure = url.protocol === 'https:';
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const pinned: LookupFunction = (_name, lookupOptions, callback) => {
      const first = addresses[0]!;
      if (lookupOptions.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    };
    const payload = Buffer.from(body);
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = (secure ? https : http).request({
        hostname,
        port: url.port ? Number(url.port) : secure ? 443 : 80,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          ...headers,
          Host: url.host,
          'Content-Type': 'application/json',
          'Content-Length': String(payload.length),
          'User-Agent': options.userAgent,
        },
        // a fresh socket per attempt: a pooled one was checked for another target
        agent: false,
        lookup: pinned,
        signal,
        ...(secure && isIP(hostname) === 0 ? { servername: hostname } : {}),
      });
      request.on('response', resolve);
      request.on('error', reject);
      request.end(payload);
    });
    const status = response.statusCode ?? 0;
    const excerpt = await readExcerpt(response, signal);
    const succeeded = status >= 200 && status <= 299;
    return result({
      responseStatus: status,
      responseExcerpt: excerpt,
      succeeded,
      error: status >= 300 && status <= 399 ? 'redirect_not_followed' : null,
    });
  } catch (error) {
    if (signal.aborted) return result({ error: 'timeout' });
    if (error instanceof FetchError) return result({ error: error.code });
    if (error instanceof TypeError) return result({ error: 'invalid_url' });
    return result({ error: networkError(error) });
  }
}

// Reasons an attempt got no answer. For a private target they would tell an account which internal
// ports are closed, filtered or open: concealed there as one.
const UNANSWERED = new Set(['timeout', 'connection_refused', 'connection_reset', 'host_unreachable', 'tls_error', 'network_error']);

/**
 * What the delivery log keeps of an attempt on a private address (a production running with
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS acknowledged): no byte of the answer, and one label for every way of
 * getting none, so the log is no window into, nor a port scanner of, the internal network.
 */
export function concealPrivateTarget(result: SentAttempt): SentAttempt {
  if (!result.privateTarget) return result;
  return {
    ...result,
    responseExcerpt: null,
    error: result.error !== null && UNANSWERED.has(result.error) ? 'network_error' : result.error,
  };
}

// What the account reads in its delivery's attempts: the usual reasons a receiver was not reached, named.
const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  EHOSTUNREACH: 'host_unreachable',
  ENETUNREACH: 'host_unreachable',
};

function networkError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return 'network_error';
  if (code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL')) return 'tls_error';
  return NETWORK_ERRORS[code] ?? 'network_error';
}

/** The answer's first KiB as text; the rest is never read (the socket is dropped). */
function readExcerpt(response: http.IncomingMessage, signal: AbortSignal): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    const done = () => {
      signal.removeEventListener('abort', done);
      response.destroy();
      // PostgreSQL text holds no NUL; a multi-byte character cut at the limit is dropped.
      resolve(
        kept === 0
          ? null
          : Buffer.concat(chunks, kept)
              .toString('utf8')
              .replaceAll('\u0000', '')
              .replace(/\uFFFD+$/, ''),
      );
    };
    signal.addEventListener('abort', done, { once: true });
    response.on('data', (chunk: Buffer) => {
      const room = EXCERPT_BYTES - kept;
      chunks.push(chunk.subarray(0, room));
      kept += Math.min(room, chunk.length);
      if (kept >= EXCERPT_BYTES) done();
    });
    response.on('end', done);
    response.on('error', done);
    response.on('close', done);
  });
}
