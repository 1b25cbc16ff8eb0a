// Webhook fairness (docs/decisions/027-abuse-resistance.md): another account's ping, from its POST to the
// moment a fast local receiver has it, idle and while one account attacks with targets that never answer:
// tarpits that accept the connection and never respond. The attacker uses every endpoint an account may
// have, pings each as often as its limits let it (most pings are refused 429: PINGS_PER_ENDPOINT_PER_MIN),
// and has the same endpoints subscribed to job.completed while its jobs, each with a `webhookUrl` on a
// tarpit origin of its own, end: so it wants 2 places on each of its endpoints and on each origin, far
// more than the fleet's slots. Two sides, each its own API and one worker (webhooks and google_maps, for
// the attacker's jobs) on a queue prefix of its own: the service as configured (the per-account cap,
// WEBHOOK_CONCURRENCY_PER_ACCOUNT's default) and the same with WEBHOOK_CONCURRENCY_PER_ACCOUNT=0 (the
// per-endpoint cap alone, as before). Webhook targets on loopback need WEBHOOK_ALLOW_PRIVATE_NETWORKS,
// as in the tests.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { createBenchAccount } from './database';
import { HttpClient, percentile } from './load';
import { freePort } from '@leadgen/testing';
import { startProcess, waitForHttp, type BenchProcess } from './processes';

export interface WebhookSide {
  label: string;
  /** WEBHOOK_CONCURRENCY_PER_ACCOUNT as set for the side ('' = the service's default) */
  cap: string;
  /** ms from the other account's POST /test to its receiver having the ping, idle and during the attack */
  idle: number[];
  attack: number[];
  /** the other account's pings that had not arrived within the wait (counted apart, not in the figures) */
  idleLate: number;
  attackLate: number;
  /** the attacker's pings accepted (202) of those it sent, and its jobs (each with a tarpit webhookUrl) */
  pingsAccepted: number;
  pingsSent: number;
  jobs: number;
  /** the attacker's deliveries in PostgreSQL when the attack's first sample was taken */
  deliveries: number | null;
  /** the attacker's attempts in flight at the tarpits: the most at once, and the connections they got */
  peakInFlight: number;
  tarpitRequests: number;
  refused?: string;
}

export interface WebhookOptions {
  databaseUrl: string;
  prefix: string;
  redis: Redis;
  /** the bench's service environment with these variables on top */
  env: (extra: Record<string, string>) => NodeJS.ProcessEnv;
  track: (p: BenchProcess) => BenchProcess;
  probe: (sql: string, params: unknown[]) => Promise<Array<Record<string, unknown>>>;
  /** WEBHOOK_TIMEOUT_MS of both sides */
  timeoutMs: number;
  /** the other account's pings per phase (at most 25: 10 endpoints × 5 pings a minute over two phases) */
  samples: number;
  /** the same on the side without the per-account cap, where each may wait for a timeout */
  uncappedSamples: number;
  /** the attacker's endpoints (an account may have 10), its pings per endpoint, its jobs (one tarpit origin each) */
  endpoints: number;
  pingsPerEndpoint: number;
  jobs: number;
  log: (line: string) => void;
}

/** WEBHOOK_CONCURRENCY and WEBHOOK_CONCURRENCY_PER_ENDPOINT as the service defaults them (the bench sets neither). */
export const SERVICE_WEBHOOK_CONCURRENCY = 10;
export const SERVICE_PER_ENDPOINT = 2;
/** the per-account cap's default: half of WEBHOOK_CONCURRENCY (packages/config) */
export const SERVICE_PER_ACCOUNT = Math.max(1, Math.floor(SERVICE_WEBHOOK_CONCURRENCY / 2));

/** How long the other account's ping is waited for before it counts as late. */
const waitFor = (timeoutMs: number) => 2 * timeoutMs + 15_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Tarpits {
  /** one server for the endpoints (a path each), and one per job origin */
  endpointUrl: (i: number) => string;
  originUrls: string[];
  inFlight: number;
  peak: number;
  requests: number;
  close(): Promise<void>;
}

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

async function startTarpits(origins: number): Promise<Tarpits> {
  const state = { inFlight: 0, peak: 0, requests: 0 };
  const servers: Server[] = [];
  const tarpit = () => {
    const server = createServer((req) => {
      state.requests += 1;
      state.inFlight += 1;
      state.peak = Math.max(state.peak, state.inFlight);
      req.socket.once('close', () => (state.inFlight -= 1));
      // Accepts, reads, and never answers.
    });
    servers.push(server);
    return listen(server);
  };
  const endpointBase = await tarpit();
  const originUrls = await Promise.all(Array.from({ length: origins }, async () => `${await tarpit()}/hook`));
  return Object.assign(state, {
    endpointUrl: (i: number) => `${endpointBase}/tarpit-${i}`,
    originUrls,
    async close() {
      for (const server of servers) server.closeAllConnections();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  });
}

/** The other account's receiver: answers 200 at once and notes when each delivery (webhook-id) came. */
async function startReceiver(): Promise<{
  url: (path: string) => string;
  arrival: (id: string, timeoutMs: number) => Promise<number | null>;
  close(): Promise<void>;
}> {
  const arrived = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const server = createServer((req, res) => {
    const at = performance.now();
    const id = String(req.headers['webhook-id'] ?? '');
    req.resume();
    req.on('end', () => res.end('ok'));
    arrived.set(id, at);
    waiting.get(id)?.(at);
  });
  const base = await listen(server);
  return {
    url: (path) => `${base}${path}`,
    arrival: (id, timeoutMs) =>
      new Promise((resolve) => {
        const at = arrived.get(id);
        if (at !== undefined) return resolve(at);
        const timer = setTimeout(() => (waiting.delete(id), resolve(null)), timeoutMs);
        waiting.set(id, (when) => (clearTimeout(timer), waiting.delete(id), resolve(when)));
      }),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function side(options: WebhookOptions, label: string, cap: string, samples: number): Promise<WebhookSide> {
  const result: WebhookSide = {
    label,
    cap,
    idle: [],
    attack: [],
    idleLate: 0,
    attackLate: 0,
    pingsAccepted: 0,
    pingsSent: 0,
    jobs: 0,
    deliveries: null,
    peakInFlight: 0,
    tarpitRequests: 0,
  };
  const queuePrefix = `${options.prefix}-webhook-${label.replace(/\W+/g, '')}`;
  const port = await freePort();
  const env = options.env({
    QUEUE_PREFIX: queuePrefix,
    WORKER_QUEUES: 'google_maps,webhooks',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_TIMEOUT_MS: String(options.timeoutMs),
    ...(cap === '' ? {} : { WEBHOOK_CONCURRENCY_PER_ACCOUNT: cap }),
  });
  // The bench's environment may carry its own webhook settings: the sides use the service's defaults.
  for (const name of ['WEBHOOK_CONCURRENCY', 'WEBHOOK_CONCURRENCY_PER_ENDPOINT', 'WEBHOOK_RETRY_SCHEDULE']) delete env[name];
  if (cap === '') delete env.WEBHOOK_CONCURRENCY_PER_ACCOUNT;
  const api = options.track(startProcess(`webhook api (${label})`, 'apps/api/src/main.ts', { ...env, PORT: String(port) }, []));
  const worker = options.track(startProcess(`webhook worker (${label})`, 'apps/worker/src/main.ts', env, []));
  const client = new HttpClient(`http://127.0.0.1:${port}`, 64);
  const tarpits = await startTarpits(options.jobs);
  const receiver = await startReceiver();
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, api);
    const attacker = await createBenchAccount(options.databaseUrl, `bench-webhook-attacker-${label}`);
    const other = await createBenchAccount(options.databaseUrl, `bench-webhook-other-${label}`);
    let seq = 0;
    const headers = (apiKey: string, extra: Record<string, string> = {}) => ({
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': `webhook-${label}-${seq++}`,
      ...extra,
    });
    const createEndpoint = async (apiKey: string, url: string) => {
      const res = await client.request('POST', '/api/v1/webhooks', headers(apiKey), JSON.stringify({ url, events: ['job.completed'] }));
      if (res.status !== 201) throw new Error(`endpoint creation answered ${res.status}: ${res.body.slice(0, 200)}`);
      return (JSON.parse(res.body) as { id: string }).id;
    };
    // The other account: 10 endpoints on its receiver, pinged in turn (5 pings per endpoint and minute).
    const mine = await Promise.all(Array.from({ length: 10 }, (_, i) => createEndpoint(other.apiKey, receiver.url(`/other-${i}`))));
    let turn = 0;
    const waitMs = waitFor(options.timeoutMs);
    const pingOnce = async (): Promise<number | null> => {
      const endpoint = mine[turn++ % mine.length]!;
      const t0 = performance.now();
      const res = await client.request('POST', `/api/v1/webhooks/${endpoint}/test`, headers(other.apiKey));
      if (res.status !== 202) throw new Error(`the other account's ping answered ${res.status}: ${res.body.slice(0, 200)}`);
      const at = await receiver.arrival((JSON.parse(res.body) as { id: string }).id, waitMs);
      return at === null ? null : at - t0;
    };
    // Warm-up: a ping comes through (the worker is connected, both processes compiled). Up to three
    // tries, on the other account's last endpoints; the measured pings start from the first.
    let warmed = false;
    for (let warm = 0; warm < 3 && !warmed; warm += 1) {
      if (!worker.alive) throw new Error(`worker exited (code ${worker.exitCode}): ${worker.tail()}`);
      turn = mine.length - 1 - warm;
      warmed = (await pingOnce()) !== null;
    }
    if (!warmed) throw new Error('no warm-up ping arrived');
    turn = 0;

    for (let i = 0; i < samples; i += 1) {
      const ms = await pingOnce();
      if (ms === null) result.idleLate += 1;
      else result.idle.push(ms);
    }
    options.log(`  ${label}: ${samples} idle pings, p50 ${percentile(result.idle, 50)?.toFixed(0) ?? '-'} ms; the attack starts`);

    // The attack: every endpoint on a tarpit, each pinged as fast as the API lets it, and jobs whose
    // ends send job.completed to all of them and to their own webhookUrl (a tarpit origin each).
    const theirs = await Promise.all(
      Array.from({ length: options.endpoints }, (_, i) => createEndpoint(attacker.apiKey, tarpits.endpointUrl(i))),
    );
    await Promise.all(
      theirs.map(async (endpoint) => {
        for (let i = 0; i < options.pingsPerEndpoint; i += 1) {
          result.pingsSent += 1;
          const res = await client.request('POST', `/api/v1/webhooks/${endpoint}/test`, headers(attacker.apiKey));
          if (res.status === 202) result.pingsAccepted += 1;
          else if (res.status !== 429) throw new Error(`the attacker's ping answered ${res.status}: ${res.body.slice(0, 200)}`);
        }
      }),
    );
    await Promise.all(
      tarpits.originUrls.map(async (webhookUrl) => {
        const res = await client.request(
          'POST',
          '/api/v1/leads/generate',
          headers(attacker.apiKey, { prefer: 'respond-async' }),
          JSON.stringify({ source: 'google_maps', category: 'dentist', state: 'US', maxResults: 5, webhookUrl }),
        );
        if (res.status !== 202) throw new Error(`the attacker's generate answered ${res.status}: ${res.body.slice(0, 200)}`);
        result.jobs += 1;
      }),
    );
    // The jobs end within moments (sandbox pages); their events are then in the outbox too.
    const ended = Date.now() + 30_000;
    for (;;) {
      const [open] = await options.probe("SELECT count(*)::int AS n FROM jobs WHERE account_id = $1 AND status IN ('queued', 'running')", [
        attacker.accountId,
      ]);
      if (Number(open?.n ?? 0) === 0) break;
      if (Date.now() > ended) throw new Error(`the attacker's ${options.jobs} jobs had not ended after 30 s`);
      await sleep(100);
    }
    // Measured once the tarpits hold what the attacker can get (or after 3 s).
    const canHold = cap === '' ? SERVICE_PER_ACCOUNT : SERVICE_WEBHOOK_CONCURRENCY;
    const filled = Date.now() + 3_000;
    while (tarpits.inFlight < canHold && Date.now() < filled) await sleep(50);
    const [row] = await options.probe('SELECT count(*)::int AS n FROM webhook_deliveries WHERE account_id = $1', [attacker.accountId]);
    result.deliveries = row ? Number(row.n) : null;
    options.log(
      `  ${label}: attacker's pings ${result.pingsAccepted}/${result.pingsSent} accepted, ${result.jobs} jobs ended, ${result.deliveries ?? '-'} deliveries, ${tarpits.inFlight} attempts at the tarpits`,
    );
    for (let i = 0; i < samples; i += 1) {
      const ms = await pingOnce();
      if (ms === null) result.attackLate += 1;
      else result.attack.push(ms);
    }
  } catch (error) {
    result.refused = (error as Error).message;
  } finally {
    result.peakInFlight = tarpits.peak;
    result.tarpitRequests = tarpits.requests;
    await client.close().catch(() => undefined);
    await Promise.all([api.stop(8_000), worker.stop(8_000)]);
    await Promise.all([tarpits.close(), receiver.close()]);
    // The side's keys: its prefix is not under the bench's own, which the bench's cleanup removes. The
    // queues' keys start with the prefix, the gate's and the limits' with its hash tag (`{prefix:...}`).
    for (const match of [`${queuePrefix}:*`, `{${queuePrefix}:*`])
      for await (const keys of options.redis.scanStream({ match, count: 1000 }))
        if ((keys as string[]).length) await options.redis.unlink(...(keys as string[]));
  }
  return result;
}

export async function measureWebhooks(options: WebhookOptions): Promise<WebhookSide[]> {
  const capped = await side(options, 'per-account cap', '', options.samples);
  // Without the per-account cap each ping may wait for a timeout or more: fewer samples.
  const uncapped = await side(options, 'per-endpoint cap only', '0', options.uncappedSamples);
  return [capped, uncapped];
}

/** The bound the decision states: the other account's ping waits for none of the attacker's attempts, each of which holds its slot at least this long. */
export const shortestHoldMs = (timeoutMs: number) => Math.max(1_000, Math.round(timeoutMs / 5));

// A late ping counts in the percentiles as longer than the wait: `> N ms`, never a figure it did not reach.
const withLate = (values: number[], late: number) => [...values, ...Array<number>(late).fill(Infinity)];

export function webhookTable(
  sides: WebhookSide[],
  options: Pick<WebhookOptions, 'timeoutMs' | 'endpoints' | 'pingsPerEndpoint' | 'jobs'>,
): string {
  const places = (options.endpoints + options.jobs) * SERVICE_PER_ENDPOINT;
  const lines = [
    `Webhooks: another account's ping, POST to received by a local receiver, idle and while one account attacks with tarpits`,
    `(accept, never answer): ${options.endpoints} endpoints pinged ${options.pingsPerEndpoint} times each and subscribed to job.completed, ${options.jobs} jobs with a`,
    `webhookUrl on a tarpit origin each: ${places} places wanted (${options.endpoints + options.jobs} targets × WEBHOOK_CONCURRENCY_PER_ENDPOINT=${SERVICE_PER_ENDPOINT}). One worker,`,
    `WEBHOOK_CONCURRENCY=${SERVICE_WEBHOOK_CONCURRENCY}, WEBHOOK_TIMEOUT_MS=${options.timeoutMs}. "late" = pings not received within 2 × the timeout + 15 s (counted in the`,
    `percentiles as longer than that); "held" = the attacker's attempts in flight at the tarpits, most at once; "pings" = its pings accepted/sent.`,
    '',
    `${'side'.padEnd(24)}${'cap'.padEnd(9)}${'idle p50'.padStart(10)}${'idle p95'.padStart(10)}${'attack p50'.padStart(12)}${'attack p95'.padStart(12)}${'ratio'.padStart(9)}${'late'.padStart(7)}${'held'.padStart(6)}${'pings'.padStart(9)}${'deliveries'.padStart(12)}`,
  ];
  for (const s of sides) {
    if (s.refused) {
      lines.push(`${s.label.padEnd(24)}failed: ${s.refused.slice(0, 120)}`);
      continue;
    }
    const idle = withLate(s.idle, s.idleLate);
    const attack = withLate(s.attack, s.attackLate);
    const ms = (value: number | undefined) =>
      value === undefined ? '-' : value === Infinity ? `> ${(waitFor(options.timeoutMs) / 1000).toFixed(0)} s` : `${value.toFixed(0)} ms`;
    const idle50 = percentile(idle, 50);
    const busy50 = percentile(attack, 50);
    const ratio =
      !idle50 || !busy50 || idle50 === Infinity
        ? '-'
        : busy50 === Infinity
          ? `> ${(waitFor(options.timeoutMs) / idle50).toFixed(0)}x`
          : `${(busy50 / idle50).toFixed(2)}x`;
    const cap = s.cap === '' ? `${SERVICE_PER_ACCOUNT} (dflt)` : s.cap === '0' ? 'none' : s.cap;
    lines.push(
      `${s.label.padEnd(24)}${cap.padEnd(9)}${ms(idle50).padStart(10)}${ms(percentile(idle, 95)).padStart(10)}${ms(busy50).padStart(12)}${ms(percentile(attack, 95)).padStart(12)}${ratio.padStart(9)}${`${s.idleLate + s.attackLate}`.padStart(7)}${String(s.peakInFlight).padStart(6)}${`${s.pingsAccepted}/${s.pingsSent}`.padStart(9)}${String(s.deliveries ?? '-').padStart(12)}`,
    );
    if (s.tarpitRequests === 0) lines.push(`  ! no request reached a tarpit on this side: the attack did not happen`);
  }
  const capped = sides[0];
  if (capped && !capped.refused) {
    const bound = shortestHoldMs(options.timeoutMs);
    const p95 = percentile(withLate(capped.attack, capped.attackLate), 95);
    const met = p95 !== undefined && p95 < bound && capped.peakInFlight <= SERVICE_PER_ACCOUNT;
    lines.push(
      '',
      `target: with the per-account cap, the attacker holds <= ${SERVICE_PER_ACCOUNT} slots and the other account's ping p95 during the attack is under`,
      `max(1 s, WEBHOOK_TIMEOUT_MS / 5) = ${bound} ms (it waited for none of the attacker's attempts): ${met ? 'OK' : 'MISS'}`,
    );
  }
  return lines.join('\n');
}
