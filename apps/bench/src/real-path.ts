// The real path (issue 32, decision 037): the real adapters and crawler in the service's own API and worker
// processes, against the upstream fakes of @leadgen/testing given the latencies of the issue (Google 300 ms a
// page, PDL 500 ms, Store Leads 400 ms, websites 250 ms a response with one host in ten at 1.5 s, DNS 30 ms),
// one job at a time, each on a fresh set of places, stores or people. Per source and size it prints the time to
// the first lead and to the terminal status (both read from PostgreSQL: the first lead's created_at, the job's
// finished_at, from its created_at) beside the critical-path floor computed from the requests the job actually
// made: its upstream pages in sequence, then the slowest site it read (DNS, robots.txt, home page, and one more
// round trip if it read a linked page), then the verifier's DNS. That floor is an upper bound of the true one
// (the slowest site may sit on an early page); the first-lead floor is the first page and the quickest site.
import http from 'node:http';
import path from 'node:path';
import { Client } from 'pg';
import {
  freePort,
  makePeople,
  makePlaces,
  makeStores,
  startFakeDnsServer,
  startGooglePlacesFake,
  startPdlFake,
  startStoreLeadsFake,
} from '@leadgen/testing';
import { createBenchAccount, createBenchDatabase } from './database';
import { startProcess, waitForHttp, type BenchProcess } from './processes';
import { readCpu } from './proc-stats';

export const LATENCY = { google: 300, pdl: 500, storeleads: 400, site: 250, slowSite: 1_500, dns: 30 };
const PAGE_LATENCY: Record<Source, number> = { google_maps: LATENCY.google, linkedin: LATENCY.pdl, shopify: LATENCY.storeleads };
type Source = 'google_maps' | 'linkedin' | 'shopify';

export interface RealPathOptions {
  databaseUrl: string;
  prefix: string;
  env: (extra: Record<string, string>) => NodeJS.ProcessEnv;
  track: (p: BenchProcess) => BenchProcess;
  quick: boolean;
  log: (line: string) => void;
}

/** Ten jobs of one account at once beside one alone (issue 32): each job's own places and sites. */
export interface ConcurrentRun {
  jobs: number;
  size: number;
  /** from the first creation to the last terminal */
  allMs: number;
  /** the slowest job's own floor: what the upstreams allow with every job's requests at once */
  floorMs: number;
  delivered: number[];
  statuses: string[];
  /** each job's terminal time (from its own creation) */
  terminalMs: number[];
  /** CPU the worker process spent from the first creation to the last terminal */
  workerCpuMs: number;
  /** the same size alone, from the plan's run, for the ratio */
  aloneMs: number | null;
  aloneFloorMs: number | null;
  aloneCpuMs: number | null;
}

export interface RealPathRun {
  source: Source;
  size: number;
  status: string;
  delivered: number;
  firstLeadMs: number | null;
  /** when a worker took the job (its start), from its creation: the queue's share of the time */
  startedMs: number | null;
  terminalMs: number;
  /** CPU the worker process spent while the job ran (nothing else ran in it) */
  workerCpuMs: number;
  pages: number;
  sites: number;
  siteRequests: number;
  floorMs: number;
  firstFloorMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SITE_SUFFIX = 'bench-site.com';
/** one host in ten answers slowly: the tenth, twentieth... of each job's list */
const slow = (host: string) => /-\d*9\./.test(host);
const hostIndex = (host: string) => Number(/-(\d+)\./.exec(host)?.[1] ?? 0);

/**
 * The businesses' websites: every name under bench-site.com, told apart by the Host header. Half of them have
 * everything a lead needs on the home page; the other half keep the address on a contact page.
 */
async function startSites(): Promise<{ port: number; requests: Map<string, string[]>; close: () => Promise<void> }> {
  const requests = new Map<string, string[]>();
  const server = http.createServer((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0]!.toLowerCase();
    const list = requests.get(host) ?? [];
    list.push(req.url ?? '/');
    requests.set(host, list);
    const answer = () => {
      const i = hostIndex(host);
      if (req.url === '/robots.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('User-agent: *\nDisallow:\n');
      }
      const social = `<a href="https://www.facebook.com/biz${i}">Facebook</a> <a href="https://www.instagram.com/biz${i}/">Instagram</a>
        <a href="https://www.linkedin.com/company/biz${i}/">LinkedIn</a>`;
      if (req.url === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        const mail = i % 2 === 0 ? `<a href="mailto:hello@${host}">hello@${host}</a>` : '';
        return res.end(
          `<html><body><h1>Business ${i}</h1>${mail}<a href="/contact">Contact us</a> <a href="/about">About</a>${social}</body></html>`,
        );
      }
      if (req.url === '/contact') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(`<html><body><h1>Contact</h1><a href="mailto:office@${host}">office@${host}</a></body></html>`);
      }
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    };
    setTimeout(answer, slow(host) ? LATENCY.slowSite : LATENCY.site);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Waits until every job is terminal: one query a poll, so one client serves them all (pg queues no query for us). */
async function pollTerminal(probe: Client, jobIds: string[], timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await probe.query<{ open: number }>(
      `SELECT count(*)::int AS open FROM unnest($1::text[]) AS wanted(id) LEFT JOIN jobs j USING (id)
       WHERE j.id IS NULL OR j.status IN ('queued', 'running')`,
      [jobIds],
    );
    if (rows[0]?.open === 0) return;
    if (Date.now() > until)
      throw new Error(`${rows[0]?.open ?? jobIds.length} of jobs ${jobIds.join(', ')} not terminal within ${timeoutMs / 1000} s`);
    await sleep(50);
  }
}

export async function measureRealPath(options: RealPathOptions): Promise<{ runs: RealPathRun[]; concurrent: ConcurrentRun | null }> {
  const GOOGLE_KEY = 'bench-google';
  const PDL_KEY = 'bench-pdl';
  const STORELEADS_KEY = 'bench-storeleads';
  const [google, pdl, storeleads, sites, dns] = await Promise.all([
    startGooglePlacesFake(GOOGLE_KEY),
    startPdlFake(PDL_KEY),
    startStoreLeadsFake(STORELEADS_KEY),
    startSites(),
    startFakeDnsServer({ mailDomainsUnder: ['com', 'example'], latencyMs: LATENCY.dns }),
  ]);
  google.latencyMs = LATENCY.google;
  // The concurrent jobs' places by their query (`dentist q<n>`): the fake lists one set for every query, so its search
  // is given each job's own set for the length of one (synchronous) search.
  const perQuery = new Map<string, typeof google.places>();
  const fake = google as unknown as { search(params: Record<string, unknown>): unknown[] };
  const ownSearch = fake.search.bind(fake);
  fake.search = (params) => {
    const own = perQuery.get(/\bq(\d+)\b/.exec(String(params.textQuery))?.[1] ?? '');
    if (!own) return ownSearch(params);
    const saved = google.places;
    google.places = own;
    try {
      return ownSearch(params);
    } finally {
      google.places = saved;
    }
  };
  pdl.latencyMs = LATENCY.pdl;
  storeleads.latencyMs = LATENCY.storeleads;
  const database = await createBenchDatabase(options.databaseUrl);
  const probe = database.probe;
  const port = await freePort();
  const env = options.env({
    DATABASE_URL: database.url,
    QUEUE_PREFIX: `${options.prefix}-realpath`,
    WORKER_QUEUES: 'google_maps,linkedin,shopify',
    GOOGLE_PLACES_API_KEY: GOOGLE_KEY,
    GOOGLE_PLACES_BASE_URL: google.url,
    GOOGLE_PLACES_RATE_PER_MIN: '100000',
    PDL_API_KEY: PDL_KEY,
    PDL_BASE_URL: pdl.url,
    PDL_RATE_PER_MIN: '100000',
    STORELEADS_API_KEY: STORELEADS_KEY,
    STORELEADS_BASE_URL: storeleads.url,
    STORELEADS_RATE_PER_MIN: '100000',
    ENRICHMENT_ALLOW_PRIVATE_NETWORKS: '1',
    DNS_SERVERS: dns.server,
    BENCH_SITES_PORT: String(sites.port),
    BENCH_DNS_MS: String(LATENCY.dns),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${path.join(__dirname, 'real-path-preload.cjs')}`.trim(),
  });
  const api = options.track(startProcess('real-path api', 'apps/api/src/main.ts', { ...env, PORT: String(port) }, []));
  const worker = options.track(startProcess('real-path worker', 'apps/worker/src/main.ts', env, []));
  const runs: RealPathRun[] = [];
  let concurrent: ConcurrentRun | null;
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, api);
    const account = await createBenchAccount(database.url, 'bench-real-path');
    const plan: Array<[Source, number]> = options.quick
      ? [
          ['google_maps', 25],
          ['shopify', 25],
          ['linkedin', 25],
        ]
      : [
          ['google_maps', 25],
          ['google_maps', 100],
          ['shopify', 25],
          ['shopify', 50],
          ['shopify', 100],
          ['linkedin', 25],
          ['linkedin', 100],
        ];
    // A warm-up job per source first (tsx compiles the worker's code paths on first use): not reported. With --quick
    // it is 5 leads: the same page and site code, without the tenth host of the list (slow: 3 rounds of 1.5 s).
    const warmUpSize = options.quick ? 5 : 10;
    const schedule = [
      ...[...new Set(plan.map(([source]) => source))].map((source) => [source, warmUpSize, true] as const),
      ...plan.map(([source, size]) => [source, size, false] as const),
    ];
    let job = 0;
    for (const [source, size, warmUp] of schedule) {
      job += 1;
      const tag = `j${job}`;
      // Fresh records per job: the verdict and robots caches see new names, as jobs for new places do.
      google.places = makePlaces(160, tag).map((place, i) => ({ ...place, websiteUri: `https://place-${tag}-${i}.${SITE_SUFFIX}/` }));
      storeleads.stores = makeStores(160, (i) => ({ name: `store-${tag}-${i}.${SITE_SUFFIX}` }));
      pdl.people = makePeople(160, (i) => ({ id: `pdl-${tag}-${i}`, linkedin_url: `linkedin.com/in/person-${tag}-${i}` }));
      const before = { google: google.requests.length, pdl: pdl.requests.length, storeleads: storeleads.requests.length };
      sites.requests.clear();
      const body =
        source === 'google_maps'
          ? { source, category: 'dentist', state: 'US', city: 'Austin', maxResults: size }
          : source === 'shopify'
            ? { source, category: 'apparel', state: 'US', maxResults: size }
            : { source, category: 'software engineer', state: 'US', maxResults: size };
      const cpuBefore = readCpu(worker.pid)?.own ?? 0;
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/leads/generate`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${account.apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': `real-path-${tag}`,
          prefer: 'respond-async',
        },
        body: JSON.stringify(body),
      });
      const created = (await res.json()) as { jobId?: string };
      if (!created.jobId) throw new Error(`real-path: ${source} ${size} was not created (${res.status})`);
      await pollTerminal(probe, [created.jobId], 120_000);
      const workerCpuMs = (readCpu(worker.pid)?.own ?? 0) - cpuBefore;
      const { rows } = await probe.query<{
        status: string;
        delivered: number;
        first_ms: string | null;
        started_ms: string | null;
        terminal_ms: string;
      }>(
        `SELECT j.status, j.delivered_count AS delivered, EXTRACT(EPOCH FROM j.started_at - j.created_at) * 1000 AS started_ms,
           EXTRACT(EPOCH FROM (SELECT min(l.created_at) FROM leads l WHERE l.job_id = j.id) - j.created_at) * 1000 AS first_ms,
           EXTRACT(EPOCH FROM j.finished_at - j.created_at) * 1000 AS terminal_ms
         FROM jobs j WHERE j.id = $1`,
        [created.jobId],
      );
      const row = rows[0]!;
      const pages =
        source === 'google_maps'
          ? google.requests.length - before.google
          : source === 'shopify'
            ? storeleads.requests.length - before.storeleads
            : pdl.requests.length - before.pdl;
      const chains = [...sites.requests].map(([host, paths]) => {
        const rounds = 2 + (paths.some((p) => p !== '/' && p !== '/robots.txt') ? 1 : 0);
        return LATENCY.dns + rounds * (slow(host) ? LATENCY.slowSite : LATENCY.site);
      });
      const lastSite = chains.length > 0 ? Math.max(...chains) : 0;
      const firstSite = chains.length > 0 ? Math.min(...chains) : 0;
      const pageMs = PAGE_LATENCY[source];
      const measured: RealPathRun = {
        source,
        size,
        status: row.status,
        delivered: row.delivered,
        firstLeadMs: row.first_ms === null ? null : Number(row.first_ms),
        startedMs: row.started_ms === null ? null : Number(row.started_ms),
        terminalMs: Number(row.terminal_ms),
        workerCpuMs,
        pages,
        sites: sites.requests.size,
        siteRequests: [...sites.requests.values()].reduce((n, p) => n + p.length, 0),
        floorMs: pages * pageMs + lastSite + LATENCY.dns,
        firstFloorMs: pageMs + firstSite + LATENCY.dns,
      };
      if (!warmUp) runs.push(measured);
    }

    // Ten google_maps jobs of one account at once (100 leads each; 25 with --quick), each on places and sites of its
    // own, beside the same size alone (the plan's run): the issue's 184 s for ten.
    const size = options.quick ? 25 : 100;
    const jobs = 10;
    sites.requests.clear();
    const firstRequest = google.requests.length;
    for (let n = 0; n < jobs; n += 1)
      perQuery.set(
        String(n),
        makePlaces(160, `q${n}`).map((place, i) => ({ ...place, websiteUri: `https://place-q${n}-${i}.${SITE_SUFFIX}/` })),
      );
    const t0 = Date.now();
    const cpu0 = readCpu(worker.pid)?.own ?? 0;
    const ids = await Promise.all(
      Array.from({ length: jobs }, async (_, n) => {
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/leads/generate`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${account.apiKey}`,
            'content-type': 'application/json',
            'idempotency-key': `real-path-concurrent-${n}`,
            prefer: 'respond-async',
          },
          body: JSON.stringify({ source: 'google_maps', category: `dentist q${n}`, state: 'US', city: 'Austin', maxResults: size }),
        });
        const created = (await res.json()) as { jobId?: string };
        if (!created.jobId) throw new Error(`real-path: concurrent job ${n} was not created (${res.status})`);
        return created.jobId;
      }),
    );
    await pollTerminal(probe, ids, 300_000);
    const workerCpuMs = (readCpu(worker.pid)?.own ?? 0) - cpu0;
    const { rows } = await probe.query<{ id: string; status: string; delivered: number; terminal_ms: string; last: Date }>(
      `SELECT id, status, delivered_count AS delivered, EXTRACT(EPOCH FROM finished_at - created_at) * 1000 AS terminal_ms, finished_at AS last
       FROM jobs WHERE id = ANY($1)`,
      [ids],
    );
    const pagesOf = (n: number) =>
      google.requests
        .slice(firstRequest)
        .filter((r) => new RegExp(`\\bq${n}\\b`).test(String((r.body as { textQuery?: unknown })?.textQuery))).length;
    const floorOf = (n: number) => {
      const chains = [...sites.requests]
        .filter(([host]) => host.startsWith(`place-q${n}-`))
        .map(
          ([host, paths]) =>
            LATENCY.dns +
            (2 + (paths.some((p) => p !== '/' && p !== '/robots.txt') ? 1 : 0)) * (slow(host) ? LATENCY.slowSite : LATENCY.site),
        );
      return pagesOf(n) * LATENCY.google + (chains.length > 0 ? Math.max(...chains) : 0) + LATENCY.dns;
    };
    const alone = runs.find((r) => r.source === 'google_maps' && r.size === size) ?? null;
    concurrent = {
      jobs,
      size,
      allMs: Math.max(...rows.map((r) => r.last.getTime())) - t0,
      floorMs: Math.max(...Array.from({ length: jobs }, (_, n) => floorOf(n))),
      delivered: rows.map((r) => r.delivered),
      statuses: [...new Set(rows.map((r) => r.status))],
      terminalMs: rows.map((r) => Number(r.terminal_ms)),
      workerCpuMs,
      aloneMs: alone?.terminalMs ?? null,
      aloneFloorMs: alone?.floorMs ?? null,
      aloneCpuMs: alone?.workerCpuMs ?? null,
    };
  } finally {
    await Promise.all([api.stop(8_000), worker.stop(8_000)]);
    await Promise.all([google.close(), pdl.close(), storeleads.close(), sites.close(), dns.close()]);
    await database.drop();
  }
  return { runs, concurrent };
}

export function realPathTable(runs: RealPathRun[]): string[] {
  const s = (ms: number | null) => (ms === null ? '-' : `${(ms / 1000).toFixed(2)} s`);
  const lines = [
    `  (Google ${LATENCY.google} ms a page, PDL ${LATENCY.pdl} ms, Store Leads ${LATENCY.storeleads} ms, websites ${LATENCY.site} ms a response, one host in ten ${LATENCY.slowSite} ms, DNS ${LATENCY.dns} ms)`,
    '  job                 status    leads  pages  sites (requests)  taken   first lead  first floor  terminal  floor    ratio  worker CPU',
  ];
  for (const r of runs)
    lines.push(
      `  ${`${r.source} ${r.size}`.padEnd(19)} ${r.status.padEnd(9)} ${String(r.delivered).padStart(5)}  ${String(r.pages).padStart(5)}  ${`${r.sites} (${r.siteRequests})`.padEnd(16)}  ${s(r.startedMs).padStart(6)}  ${s(r.firstLeadMs).padStart(10)}  ${s(r.firstFloorMs).padStart(11)}  ${s(r.terminalMs).padStart(8)}  ${s(r.floorMs).padStart(7)}  ${(r.terminalMs / r.floorMs).toFixed(2)}x  ${s(r.workerCpuMs).padStart(10)}`,
    );
  return lines;
}

export function concurrentLines(c: ConcurrentRun): string[] {
  const s = (ms: number | null) => (ms === null ? '-' : `${(ms / 1000).toFixed(2)} s`);
  const sorted = [...c.terminalMs].sort((a, b) => a - b);
  return [
    `  ${c.jobs} google_maps jobs of ${c.size} at once, one account (${c.statuses.join(', ')}; leads ${Math.min(...c.delivered)}-${Math.max(...c.delivered)} each):`,
    `    all terminal after ${s(c.allMs)} (each job ${s(sorted[0]!)} to ${s(sorted.at(-1)!)}); floor (the slowest job's own requests, all at once) ${s(c.floorMs)}: ratio ${(c.allMs / c.floorMs).toFixed(2)}x`,
    `    one alone: ${s(c.aloneMs)} (floor ${s(c.aloneFloorMs)}); ten / one = ${c.aloneMs ? (c.allMs / c.aloneMs).toFixed(2) : '-'}x (target <= 2x)`,
    `    worker CPU: ${s(c.workerCpuMs)} for the ten (${((c.workerCpuMs / c.allMs) * 100).toFixed(0)} % of a core over the run), ${s(c.aloneCpuMs)} for the one alone`,
  ];
}
