// One account against another (issue 31): another account's sync p50 and its webhook delay, idle and while one
// account runs each attack of the issue in turn. The attacks:
// - exports: three loops of CSV downloads of its whole history (EXPORTS_PER_ACCOUNT_AT_ONCE lets two stream);
// - uploads: two loops of 100,000-entry suppression uploads (decision 035: one at a time, charged by size first);
// - unknown keys: eight loops of requests with made-up API keys from the other account's own address (finding 1);
// - generate flood: eight loops of async generates (the fair share of decision 020 holds them), as many as the default
//   RATE_LIMIT_GENERATE_PER_MIN admits (120 in a minute, played by the bench), then with no limit;
// - tarpit, last: webhook endpoints and jobs' webhookUrl on a path of the other account's own webhook origin that
//   accepts and never answers (finding 2: the gate is per account, not per host), with as many jobs as the default
//   generate limit admits, then with no limit.
// Each phase starts once the previous one's jobs have ended (at most SETTLE_MS), and each attacks with an account of its
// own (the two tarpit phases share one), whose windows no earlier phase has spent (an upload weighs 1,000 calls of the read window: after the exports,
// one attacker's uploads were all refused and the row measured nothing); the exports' account has a history to export.
// A phase in which none of the attacker's requests was admitted (`admitted` 0: no 2xx, or for the unknown keys no
// 401, their keys never looked up) did not attack: the section counts it broken (broken-sections.ts), never OK.
// The other account makes sync generates one at a time (25 leads, sandbox), each with a webhookUrl on that origin:
// its sync latency is the POST's, its webhook delay the time from the job's finished_at (PostgreSQL) to the
// delivery's arrival. The targets are the issue's: sync p50 within 1.5× idle and webhook delay within 2× idle under
// every attack. Its own database, API and worker (google_maps and webhooks) on a queue prefix of its own; the
// service's own limits except RATE_LIMIT_GENERATE_PER_MIN, raised so the other account's sequence is never refused
// (the attacker's floods are then only harder). Webhook targets on loopback need WEBHOOK_ALLOW_PRIVATE_NETWORKS.
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { freePort } from '@leadgen/testing';
import { createBenchAccount, createBenchDatabase } from './database';
import { seedExportAccounts } from './export-memory';
import { HttpClient, percentile } from './load';
import { startProcess, waitForHttp, type BenchProcess } from './processes';

export interface AttackOptions {
  databaseUrl: string;
  prefix: string;
  redis: Redis;
  /** the bench's service environment with these variables on top */
  env: (extra: Record<string, string>) => NodeJS.ProcessEnv;
  track: (p: BenchProcess) => BenchProcess;
  quick: boolean;
  /** the phases to run besides idle, by key (idle, exports, uploads, keys, flood-120, flood, tarpit-120, tarpit); all when absent */
  phases?: string[];
  log: (line: string) => void;
}

export interface AttackPhase {
  name: string;
  /** ms of the other account's sync generates (200s), and of its webhook deliveries from finished_at to arrival */
  sync: number[];
  webhook: number[];
  /** its deliveries not received within the wait after the phase (counted as longer than it) */
  late: number;
  /** its generates that did not answer 200 (a valid key refused would show here), by status */
  refused: Record<string, number>;
  /** the attacker's requests in the phase, by status */
  attacker: Record<string, number>;
  /**
   * the attacker's requests the service took on (2xx; for made-up keys, 401: looked up and refused), null for idle;
   * 0 means nothing attacked in the phase, whatever the other account's figures say
   */
  admitted: number | null;
  /**
   * the other account's jobs: ms from the POST to the job's creation (the API before the job), from creation to start,
   * from start to finish (PostgreSQL's timestamps), and from the finish to the answer (the API after the job)
   */
  split?: { before: number[]; queued: number[]; ran: number[]; after: number[] };
  /** the machine's 1-minute load average at the phase's end (the box is shared: a figure without it means little) */
  load?: number;
  failed?: string;
}

const SYNC_TARGET = 1.5;
const WEBHOOK_TARGET = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LATE_WAIT_MS = 10_000;
const SETTLE_MS = 20_000;
/** RATE_LIMIT_GENERATE_PER_MIN's default (packages/config), which the bench plays for the attacker */
const DEFAULT_GENERATE_PER_MIN = 120;

/** The other account's webhook origin: `/other` answers at once and notes the arrival; any other path is a tarpit. */
async function startOrigin(): Promise<{
  url: (path: string) => string;
  arrivals: Map<string, number>;
  tarpitRequests: () => number;
  close(): Promise<void>;
}> {
  const arrivals = new Map<string, number>();
  let tarpit = 0;
  const server: Server = createServer((req, res) => {
    if (req.url !== '/other') {
      tarpit += 1; // accepts, reads, never answers
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const jobId = /"jobId"\s*:\s*"([^"]+)"/.exec(Buffer.concat(chunks).toString('utf8'))?.[1];
      if (jobId && !arrivals.has(jobId)) arrivals.set(jobId, at);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => `${base}${path}`,
    arrivals,
    tarpitRequests: () => tarpit,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A running attack: `stop` ends its loops and waits for their last requests. */
type Attack = { stop(): Promise<void> };
type AttackStarter = (count: (status: number | string) => void) => Promise<Attack>;

/** `loops` loops of `step` until stopped; a refused step waits `pauseMs` (a client that retries at once would only flood). */
function loops(n: number, step: (i: number) => Promise<number | string>, count: (status: number | string) => void, pauseMs = 20): Attack {
  let stopped = false;
  const running = Array.from({ length: n }, async (_, loop) => {
    for (let i = 0; !stopped; i += 1) {
      const status = await step(loop * 1_000_000 + i).catch((error: Error) => `error: ${error.message.slice(0, 60)}`);
      count(status);
      if (status !== 200 && status !== 202) await sleep(pauseMs);
    }
  });
  return {
    async stop() {
      stopped = true;
      await Promise.all(running);
    },
  };
}

export async function measureAttacks(options: AttackOptions): Promise<AttackPhase[]> {
  const phaseMs = options.quick ? 2_000 : 10_000;
  const exportLeads = options.quick ? 4_000 : 50_000;
  const queuePrefix = `${options.prefix}-attacks`;
  const db = await createBenchDatabase(options.databaseUrl);
  const origin = await startOrigin();
  const port = await freePort();
  const env = options.env({
    DATABASE_URL: db.url,
    QUEUE_PREFIX: queuePrefix,
    WORKER_QUEUES: 'google_maps,webhooks',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    ...(options.quick ? { WEBHOOK_TIMEOUT_MS: '2000' } : {}),
  });
  // The service's own limits (the bench raises them for its throughput sections), but for generate.
  for (const name of [
    'RATE_LIMIT_READ_PER_MIN',
    'API_IN_FLIGHT_PER_ACCOUNT',
    'WEBHOOK_CONCURRENCY',
    'WEBHOOK_CONCURRENCY_PER_ENDPOINT',
    'WEBHOOK_CONCURRENCY_PER_ACCOUNT',
  ])
    delete env[name];
  env.RATE_LIMIT_GENERATE_PER_MIN = '100000';
  const api = options.track(startProcess('attacks api', 'apps/api/src/main.ts', { ...env, PORT: String(port) }, []));
  const worker = options.track(startProcess('attacks worker', 'apps/worker/src/main.ts', env, []));
  const client = new HttpClient(`http://127.0.0.1:${port}`, 64);
  // The attacker is another client, with connections of its own: a refused upload's connection is held for its lingering
  // close (2 s, decision 035), and on one shared pool the other account's generates waited for a free connection.
  const attackerClient = new HttpClient(`http://127.0.0.1:${port}`, 64);
  const phases: AttackPhase[] = [];
  try {
    // The exports' attacker has a history to export; the other account, and every other phase's attacker, is fresh.
    const [[exporter], other] = await Promise.all([
      seedExportAccounts(db.url, [exportLeads]),
      createBenchAccount(db.url, 'bench-attacks-other'),
      waitForHttp(`http://127.0.0.1:${port}/healthz`, api),
    ]);
    const authOf = (apiKey: string) => ({ authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' });
    // The phase's attacker, set before each phase starts (the starters read it when they run).
    let attackerAuth = authOf(exporter!.apiKey);
    let seq = 0;
    const idempotency = () => `attacks-${seq++}`;

    // The other account's sequence: one sync generate after another, each job's webhook to /other.
    const otherBody = JSON.stringify({
      source: 'google_maps',
      category: 'dentist',
      state: 'US',
      city: 'Austin',
      maxResults: 25,
      webhookUrl: origin.url('/other'),
    });
    // When each of the other account's POSTs was sent and answered (the wall clock, as PostgreSQL's timestamps are).
    const sentAt = new Map<string, [number, number]>();
    const otherSequence = async (ms: number, phase: AttackPhase, jobIds: string[]) => {
      const until = performance.now() + ms;
      while (performance.now() < until) {
        const t0 = performance.now();
        const wall0 = Date.now();
        const res = await client.request(
          'POST',
          '/api/v1/leads/generate',
          { authorization: `Bearer ${other.apiKey}`, 'content-type': 'application/json', 'idempotency-key': idempotency() },
          otherBody,
        );
        if (res.status !== 200) {
          phase.refused[res.status] = (phase.refused[res.status] ?? 0) + 1;
          await sleep(50);
          continue;
        }
        phase.sync.push(performance.now() - t0);
        const jobId = (JSON.parse(res.body) as { jobId: string }).jobId;
        jobIds.push(jobId);
        sentAt.set(jobId, [wall0, Date.now()]);
      }
    };
    // Its webhook delays, once the phase's deliveries have come (or LATE_WAIT_MS has passed).
    const webhookDelays = async (phase: AttackPhase, jobIds: string[]) => {
      const waitUntil = Date.now() + LATE_WAIT_MS;
      while (jobIds.some((id) => !origin.arrivals.has(id)) && Date.now() < waitUntil) await sleep(50);
      const { rows } = await db.probe.query<{ id: string; finished_at: Date; created_at: Date; started_at: Date | null }>(
        'SELECT id, finished_at, created_at, started_at FROM jobs WHERE id = ANY($1)',
        [jobIds],
      );
      // Where its sync time went (the log line, not the table): created → taken by a worker → finished.
      const timed = rows.filter((r) => sentAt.has(r.id));
      phase.split = {
        before: timed.map((r) => r.created_at.getTime() - sentAt.get(r.id)![0]),
        queued: rows.filter((r) => r.started_at).map((r) => r.started_at!.getTime() - r.created_at.getTime()),
        ran: rows.filter((r) => r.started_at).map((r) => r.finished_at.getTime() - r.started_at!.getTime()),
        after: timed.map((r) => sentAt.get(r.id)![1] - r.finished_at.getTime()),
      };
      for (const row of rows) {
        const at = origin.arrivals.get(row.id);
        if (at === undefined) phase.late += 1;
        else phase.webhook.push(Math.max(0, at - row.finished_at.getTime()));
      }
    };

    // Warm-up: both processes compiled, the worker consuming, a delivery through.
    const warm: AttackPhase = { name: 'warm-up', sync: [], webhook: [], late: 0, refused: {}, attacker: {}, admitted: null };
    const warmIds: string[] = [];
    await otherSequence(options.quick ? 1_000 : 3_000, warm, warmIds);
    if (warm.sync.length === 0) throw new Error(`no sync generate of the other account answered 200: ${JSON.stringify(warm.refused)}`);
    await webhookDelays(warm, warmIds);
    if (warm.webhook.length === 0) throw new Error('no webhook of the other account arrived in the warm-up');

    // Encoded once: the bench's own loop (which times the other account) does not encode 4 MB per upload.
    const uploads = [0, 1].map((n) =>
      Buffer.from(JSON.stringify({ emails: Array.from({ length: 100_000 }, (_, i) => `person${n}-${i}@attacker-list.example`) })),
    );
    const upload = async (body: Buffer) => {
      const res = await attackerClient.pool.request({ method: 'PUT', path: '/api/v1/suppressions', headers: attackerAuth, body });
      await res.body.dump();
      return res.statusCode;
    };

    // Eight loops of async generates. RATE_LIMIT_GENERATE_PER_MIN is raised for the whole service (the other account's
    // sequence needs it), so the flood the defaults admit is played by the bench: at most `perMinute` calls in each
    // minute of the clock (the service's fixed window: a whole minute's allowance may come at once), the others
    // counted as refused without being sent (a refusal costs the service one Redis call, as the key flood shows).
    // One async generate of the attacker's per call, held by the bench to `perMinute` (the default limit) when given.
    const generating = (body: string, perMinute: number | null) => {
      const sent = new Map<number, number>();
      return async () => {
        const minute = Math.floor(Date.now() / 60_000);
        if (perMinute !== null && (sent.get(minute) ?? 0) >= perMinute) return `429 (the default limit, at the bench)`;
        sent.set(minute, (sent.get(minute) ?? 0) + 1);
        const headers = { ...attackerAuth, prefer: 'respond-async', 'idempotency-key': idempotency() };
        return (await attackerClient.request('POST', '/api/v1/leads/generate', headers, body)).status;
      };
    };
    const generateFlood =
      (perMinute: number | null): AttackStarter =>
      async (count) => {
        const body = JSON.stringify({ source: 'google_maps', category: 'plumber', state: 'US', maxResults: 25 });
        return loops(8, generating(body, perMinute), count);
      };
    // Endpoints on the tarpit (made once), subscribed to job.completed, and two loops of jobs whose own webhookUrl is
    // the tarpit too: each job is 11 deliveries there. As many jobs as the default limit admits, then with no limit.
    const tarpitEndpoints = new Set<string>(); // the attackers whose endpoints are made
    const tarpit =
      (perMinute: number | null): AttackStarter =>
      async (count) => {
        // The attacker's read window may be spent by the phases before (an upload weighs 1,000 calls): each endpoint is
        // asked for again after the Retry-After it is given, for a minute at most.
        for (let i = 0, until = Date.now() + 60_000; i < 10 && !tarpitEndpoints.has(attackerAuth.authorization) && Date.now() < until;) {
          const res = await attackerClient.request(
            'POST',
            '/api/v1/webhooks',
            attackerAuth,
            JSON.stringify({ url: origin.url(`/tarpit-${i}`), events: ['job.completed'] }),
          );
          count(res.status);
          if (res.status === 201) i += 1;
          else if (res.status === 429) await sleep(1_000);
          else throw new Error(`a tarpit endpoint was answered ${res.status}: ${res.body.slice(0, 200)}`);
        }
        tarpitEndpoints.add(attackerAuth.authorization);
        const body = JSON.stringify({
          source: 'google_maps',
          category: 'bakery',
          state: 'US',
          maxResults: 5,
          webhookUrl: origin.url('/tarpit'),
        });
        const attack = loops(2, generating(body, perMinute), count);
        await sleep(500); // the first deliveries are at the tarpit before the measure starts
        return attack;
      };
    const attacks: Array<[string, string, AttackStarter, admitted?: (status: number | string) => boolean]> = [
      ['idle', 'idle', () => Promise.resolve({ stop: () => Promise.resolve() })],
      [
        'exports',
        'CSV exports (3 loops)',
        async (count) =>
          loops(
            3,
            async () => {
              const res = await attackerClient.pool.request({ method: 'GET', path: '/api/v1/leads?format=csv', headers: attackerAuth });
              for await (const chunk of res.body) void chunk; // read and dropped, as fast as it comes
              return res.statusCode;
            },
            count,
          ),
      ],
      ['uploads', '100k-entry uploads (2 loops)', async (count) => loops(2, (i) => upload(uploads[i % uploads.length]!), count)],
      [
        'keys',
        'unknown-key flood (8 loops)',
        async (count) =>
          loops(
            8,
            async () =>
              (
                await attackerClient.request('GET', '/api/v1/account', {
                  authorization: `Bearer lg_live_${randomBytes(30).toString('base64url')}`,
                })
              ).status,
            count,
            0,
          ),
        (status) => status === 401, // looked up and refused: what the flood costs the service (429: the throttle's)
      ],
      ['flood-120', 'generate flood at 120/min', generateFlood(DEFAULT_GENERATE_PER_MIN)],
      ['flood', 'generate flood, no limit', generateFlood(null)],
      ['tarpit-120', 'webhook tarpit at 120/min', tarpit(DEFAULT_GENERATE_PER_MIN)],
      ['tarpit', 'webhook tarpit, no limit', tarpit(null)],
    ];

    const selected = attacks.filter(([key]) => key === 'idle' || !options.phases || options.phases.includes(key));
    // An attacker per phase, whose windows no earlier phase spent; the exports' has the history. The two tarpit phases
    // share one (its endpoints are made once, and two tarpitting accounts would hold twice the webhook slots).
    const accountOf = (key: string) => (key === 'tarpit-120' ? 'tarpit' : key);
    const attackers = new Map<string, Promise<string>>();
    for (const [key] of selected)
      if (!attackers.has(accountOf(key)))
        attackers.set(
          accountOf(key),
          key === 'exports'
            ? Promise.resolve(exporter!.apiKey)
            : createBenchAccount(db.url, `bench-attacks-${accountOf(key)}`).then((a) => a.apiKey),
        );
    for (const [key, name, start, isAdmitted] of selected) {
      const phase: AttackPhase = { name, sync: [], webhook: [], late: 0, refused: {}, attacker: {}, admitted: key === 'idle' ? null : 0 };
      phases.push(phase);
      attackerAuth = authOf(await attackers.get(accountOf(key))!);
      const admitted = isAdmitted ?? ((status: number | string) => typeof status === 'number' && status >= 200 && status < 300);
      try {
        if (!worker.alive) throw new Error(`worker exited (code ${worker.exitCode}): ${worker.tail()}`);
        const attack = await start((status) => {
          phase.attacker[status] = (phase.attacker[status] ?? 0) + 1;
          if (phase.admitted !== null && admitted(status)) phase.admitted += 1;
        });
        const jobIds: string[] = [];
        try {
          await otherSequence(phaseMs, phase, jobIds);
        } finally {
          await attack.stop();
        }
        await webhookDelays(phase, jobIds);
        // The next attack starts on a quiet service: the attacker's jobs ended (a flood's backlog drained).
        const quietBy = Date.now() + SETTLE_MS;
        for (;;) {
          const { rows } = await db.probe.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM jobs WHERE account_id <> $1 AND status::text IN ('queued', 'running')",
            [other.accountId],
          );
          if (rows[0]!.n === 0) break;
          if (Date.now() > quietBy) {
            options.log(`  ! attacks, ${name}: ${rows[0]!.n} of the attacker's jobs still open ${SETTLE_MS / 1000} s after the phase`);
            break;
          }
          await sleep(200);
        }
      } catch (error) {
        phase.failed = (error as Error).message;
      }
      const load = (phase.load = loadavg()[0]!);
      options.log(
        `  attacks, ${name} (load ${load.toFixed(1)}): other account ${phase.sync.length} sync jobs p50 ${percentile(phase.sync, 50)?.toFixed(0) ?? '-'} ms, webhook p50 ${percentile(phase.webhook, 50)?.toFixed(0) ?? '-'} ms (POST to created p50 ${p50(phase.split?.before)} ms, to started ${p50(phase.split?.queued)} ms, to finished ${p50(phase.split?.ran)} ms, to answered ${p50(phase.split?.after)} ms); attacker ${JSON.stringify(phase.attacker)}`,
      );
    }
    if (origin.tarpitRequests() === 0) {
      const tarpit = phases.find((p) => p.name.startsWith('webhook tarpit'));
      if (tarpit && !tarpit.failed) tarpit.failed = 'no request reached the tarpit: the attack did not happen';
    }
  } finally {
    await client.close().catch(() => undefined);
    await attackerClient.close().catch(() => undefined);
    await Promise.all([api.stop(8_000), worker.stop(8_000)]);
    await origin.close();
    for (const match of [`${queuePrefix}:*`, `{${queuePrefix}:*`])
      for await (const keys of options.redis.scanStream({ match, count: 1000 }))
        if ((keys as string[]).length) await options.redis.unlink(...(keys as string[]));
    await db.drop();
  }
  return phases;
}

const p50 = (values: number[] | undefined) => percentile(values ?? [], 50)?.toFixed(0) ?? '-';
const withLate = (values: number[], late: number) => [...values, ...Array<number>(late).fill(Infinity)];

export function attackTable(phases: AttackPhase[]): string[] {
  const idle = phases.find((p) => p.name === 'idle');
  const idleSync = idle && percentile(idle.sync, 50);
  const idleHook = idle && percentile(withLate(idle.webhook, idle.late), 50);
  const ms = (v: number | undefined) => (v === undefined ? '-' : v === Infinity ? `> ${LATE_WAIT_MS / 1000} s` : `${v.toFixed(0)} ms`);
  const ratio = (v: number | undefined, base: number | undefined) =>
    v === undefined || !base ? '-' : v === Infinity ? 'late' : `${(v / base).toFixed(2)}x`;
  const lines = [
    "One account against another (issue 31): the other account's sync generates one at a time (25 leads, sandbox) and its",
    "jobs' webhook delay (finished_at to arrival at its receiver), idle and while one account attacks; the floors are the",
    `issue's targets: sync p50 <= ${SYNC_TARGET}x idle, webhook delay p50 <= ${WEBHOOK_TARGET}x idle. "refused" = the other account's generates not`,
    'answered 200; "attacker" = the attacker\'s answers by status; "load" = the 1-minute load average at the phase\'s end;',
    'met "NONE" = none of the attacker\'s requests was admitted (no 2xx; for made-up keys no 401): the phase measured nothing.',
    '',
    `${'attack'.padEnd(30)}${'jobs'.padStart(6)}${'sync p50'.padStart(10)}${'ratio'.padStart(8)}${'floor'.padStart(7)}${'webhook p50'.padStart(13)}${'ratio'.padStart(8)}${'floor'.padStart(7)}${'late'.padStart(6)}${'load'.padStart(6)}  ${'met'.padEnd(5)}${'refused'.padEnd(9)}attacker`,
  ];
  for (const p of phases) {
    if (p.failed) {
      lines.push(`${p.name.padEnd(30)}failed: ${p.failed.slice(0, 140)}`);
      continue;
    }
    const sync = percentile(p.sync, 50);
    const hook = percentile(withLate(p.webhook, p.late), 50);
    const met =
      p.admitted === null
        ? ''
        : p.admitted === 0
          ? 'NONE' // nothing of the attacker's was admitted: nothing attacked (a broken phase, broken-sections.ts)
          : sync !== undefined && idleSync && hook !== undefined && idleHook && Object.keys(p.refused).length === 0
            ? sync <= SYNC_TARGET * idleSync && hook <= WEBHOOK_TARGET * idleHook
              ? 'OK'
              : 'MISS'
            : '-';
    const refused = Object.entries(p.refused)
      .map(([s, n]) => `${s}:${n}`)
      .join(',');
    const attacker = Object.entries(p.attacker)
      .map(([s, n]) => `${s}:${n}`)
      .join(' ');
    lines.push(
      `${p.name.padEnd(30)}${String(p.sync.length).padStart(6)}${ms(sync).padStart(10)}${ratio(sync, idleSync).padStart(8)}${`${SYNC_TARGET}x`.padStart(7)}${ms(hook).padStart(13)}${ratio(hook, idleHook).padStart(8)}${`${WEBHOOK_TARGET}x`.padStart(7)}${String(p.late).padStart(6)}${(p.load?.toFixed(1) ?? '-').padStart(6)}  ${met.padEnd(5)}${(refused || '-').padEnd(9)}${attacker || '-'}`,
    );
  }
  return lines;
}
