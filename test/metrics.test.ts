import { createServer, type Server } from 'node:http';
import { promtool } from './promtool';
import type { AddressInfo } from 'node:net';
import { metricsRoute, startOpsServer, collectProcessMetrics, type OpsServer } from '@leadgen/ops';
import { UpstreamClient } from '../packages/providers/src/upstream/upstream-client';
import { createWebsiteEnricher } from '../packages/providers/src/enrichment/website-enricher';
import { html, loopbackLookup, startFakeSite, type FakeSite } from '@leadgen/testing';
import { freePort, generate, idempotencyKey, startWorld, type TestWorld } from './harness';
import { buildAccount } from './factories';

type Sample = { name: string; labels: Record<string, string>; value: number };

function parse(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`unparsable line: ${line}`);
      const labels: Record<string, string> = {};
      for (const [, k, v] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!;
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

describe('GET /metrics on the operations port', () => {
  let world: TestWorld;
  let ops: OpsServer;
  let upstream: Server;
  let site: FakeSite;
  let samples: Sample[];
  let exposition: string;

  const value = (name: string, labels: Record<string, string> = {}) =>
    samples
      .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((sum, s) => sum + s.value, 0);

  beforeAll(async () => {
    // Only google_maps is consumed here, so a shopify job stays waiting and the queue depth shows it.
    world = await startWorld({
      env: { WORKER_QUEUES: 'google_maps', RATE_LIMIT_GENERATE_PER_MIN: '5', MONITOR_MIN_INTERVAL_MS: '1000', MONITOR_SWEEP_MS: '500' },
    });
    collectProcessMetrics();
    ops = (await startOpsServer({
      host: '127.0.0.1',
      port: await freePort(),
      readiness: world.api.readiness,
      routes: { '/metrics': metricsRoute },
    }))!;
    const account = await buildAccount(world.db, { credits: 100_000 });
    const complete = { category: 'bakery', state: 'FR', maxResults: 12 };
    const key = idempotencyKey();
    expect((await generate(world, account, complete, { 'Idempotency-Key': key })).body.status).toBe('COMPLETE');
    expect((await generate(world, account, complete, { 'Idempotency-Key': key })).get('Idempotent-Replayed')).toBe('true');
    expect((await generate(world, account, { ...complete, keyword: 'sandbox:fail' })).body.status).toBe('FAILED');
    const slow = await generate(world, account, { ...complete, keyword: 'sandbox:delay=2000' }, { Prefer: 'respond-async' });
    expect((await world.http.delete(`/api/v1/leads/jobs/${slow.body.jobId}`).set(account.auth)).body.status).toBe('CANCELLED');
    // Nobody consumes shopify here: one more than an account's share of jobs (of its own: the generate limit), so one is held.
    const shopper = await buildAccount(world.db, { credits: 10_000 });
    for (let i = 0; i <= world.config.queue.share; i++)
      expect(
        (
          await generate(
            world,
            shopper,
            { source: 'shopify', category: `apparel ${i}`, state: 'CA', maxResults: 4 },
            { Prefer: 'respond-async' },
          )
        ).status,
      ).toBe(202);
    const limited = await buildAccount(world.db, { credits: 0 });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await generate(world, limited, {})).status);
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);

    // A monitor: a run asked for, and the ticks of its schedule (an account of its own: the generate limit is spent).
    const watcher = await buildAccount(world.db, { credits: 10_000 });
    const monitor = await world.http
      .post('/api/v1/monitors')
      .set(watcher.auth)
      .send({ name: 'metrics', request: complete, schedule: { every: 'PT1S' } });
    const monitorPath = `/api/v1/monitors/${monitor.body.monitorId}`;
    expect((await world.http.post(`${monitorPath}/run`).set(watcher.auth).set('Idempotency-Key', idempotencyKey())).status).toBe(202);
    const ticked = async () =>
      ((await world.http.get(`${monitorPath}/runs`).set(watcher.auth)).body.items as Array<{ kind: string }>).some(
        (r) => r.kind === 'scheduled',
      );
    for (let i = 0; i < 100 && !(await ticked()); i++) await new Promise((r) => setTimeout(r, 100));
    await world.http.patch(monitorPath).set(watcher.auth).send({ enabled: false });

    // An upstream answering each outcome once (a real adapter's client, no retries).
    upstream = createServer((req, res) => {
      const status = Number(req.url?.slice(1));
      if (req.url === '/hang') return; // never answers: the attempt times out
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const client = new UpstreamClient({
      name: 'fake_upstream',
      baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      headers: {},
      retry: { maxAttempts: 1 },
      attemptTimeoutMs: 200,
    });
    for (const path of ['200', '429', '503', '401', 'hang']) {
      await client
        .request({ method: 'GET', path, signal: new AbortController().signal, deadline: Date.now() + 5_000 })
        .catch(() => undefined);
    }
    site = await startFakeSite((req, res) =>
      req.url === '/' ? html(res, '<a href="/contact">Contact</a> info@shop.example') : html(res, 'gone', 404),
    );
    const enricher = createWebsiteEnricher({
      allowPrivateNetworks: true,
      timeoutMs: 2_000,
      maxBytes: 65_536,
      concurrency: 2,
      lookup: loopbackLookup(),
    });
    await enricher.enrich(`http://shop.example:${site.port}/`, new AbortController().signal);

    const res = await fetch(`http://127.0.0.1:${ops.port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    exposition = await res.text();
    samples = parse(exposition);
  }, 60_000);

  afterAll(async () => {
    await ops?.close();
    await new Promise((resolve) => upstream?.close(resolve));
    await site?.close();
    await world?.close();
  });

  it('when scraped, then promtool (what Prometheus ships to lint expositions) accepts it', () => {
    const check = promtool(['check', 'metrics'], exposition);
    expect({ status: check.status, problems: `${check.stdout}${check.stderr}`.trim() }).toEqual({ status: 0, problems: '' });
  });

  it('when /metrics is asked of the public port, then it does not exist there', async () => {
    expect((await world.http.get('/metrics')).status).toBe(404);
  });

  it('when scraped, then the process metrics are there', () => {
    expect(value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(value('nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('when requests were answered, then they are counted by route template, method and status', () => {
    expect(
      value('leadgen_http_request_duration_seconds_count', { route: '/api/v1/leads/generate', method: 'POST', status: '200' }),
    ).toBeGreaterThanOrEqual(3);
    expect(
      value('leadgen_http_request_duration_seconds_count', { route: '/api/v1/leads/jobs/:jobId', method: 'DELETE', status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    expect(exposition).not.toMatch(/route="\/api\/v1\/leads\/jobs\/job_/);
  });

  it('when jobs were created and ended, then creations, terminal statuses, durations, leads and credits are counted by source', () => {
    expect(value('leadgen_jobs_created_total', { source: 'google_maps' })).toBeGreaterThanOrEqual(3);
    expect(value('leadgen_jobs_created_total', { source: 'shopify' })).toBeGreaterThanOrEqual(1);
    expect(value('leadgen_jobs_terminal_total', { source: 'google_maps', status: 'COMPLETE', stop_reason: 'none' })).toBeGreaterThanOrEqual(
      1,
    );
    expect(
      value('leadgen_jobs_terminal_total', { source: 'google_maps', status: 'FAILED', stop_reason: 'provider_error' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      value('leadgen_jobs_terminal_total', { source: 'google_maps', status: 'CANCELLED', stop_reason: 'cancelled_by_owner' }),
    ).toBeGreaterThanOrEqual(1);
    expect(value('leadgen_job_duration_seconds_count', { source: 'google_maps' })).toBeGreaterThanOrEqual(3);
    expect(value('leadgen_job_time_to_first_lead_seconds_count', { source: 'google_maps' })).toBeGreaterThanOrEqual(1);
    expect(value('leadgen_leads_delivered_total', { source: 'google_maps' })).toBeGreaterThanOrEqual(12);
    expect(value('leadgen_credits_charged_total', { source: 'google_maps' })).toBeGreaterThanOrEqual(24);
  });

  it('when a job waits in a queue nobody consumes, then the queue depth and the consumers say so', () => {
    expect(value('leadgen_queue_jobs', { queue: 'shopify', state: 'waiting' })).toBeGreaterThanOrEqual(1);
    // Past the account's share (QUEUE_OPEN_JOBS_PER_ACCOUNT) the shopify jobs wait held in PostgreSQL.
    expect(value('leadgen_queue_jobs', { queue: 'shopify', state: 'held' })).toBeGreaterThanOrEqual(1);
    expect(samples.some((s) => s.name === 'leadgen_queue_jobs' && s.labels.queue === 'google_maps' && s.labels.state === 'active')).toBe(
      true,
    );
    expect(value('leadgen_queue_consumers', { queue: 'google_maps' })).toBeGreaterThanOrEqual(1);
  });

  it('when sandbox jobs ran, then their pages are counted as attempts at the upstream `sandbox`, as a real upstream’s are', () => {
    // The COMPLETE job's two pages at least, and the failing job's one failed page.
    expect(value('leadgen_upstream_request_duration_seconds_count', { upstream: 'sandbox', outcome: 'ok' })).toBeGreaterThanOrEqual(2);
    expect(value('leadgen_upstream_request_duration_seconds_count', { upstream: 'sandbox', outcome: '5xx' })).toBeGreaterThanOrEqual(1);
  });

  it('when upstream attempts ended each way, then each outcome is counted with its latency', () => {
    for (const outcome of ['ok', '429', '5xx', 'unauthorized', 'timeout']) {
      expect(value('leadgen_upstream_request_duration_seconds_count', { upstream: 'fake_upstream', outcome })).toBe(1);
    }
    expect(
      value('leadgen_upstream_request_duration_seconds_sum', { upstream: 'fake_upstream', outcome: 'timeout' }),
    ).toBeGreaterThanOrEqual(0.15);
  });

  it('when a website was enriched, then its page fetches are counted by outcome', () => {
    expect(value('leadgen_enrichment_fetches_total', { outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(value('leadgen_enrichment_fetches_total', { outcome: 'http_error' })).toBeGreaterThanOrEqual(1);
  });

  it('when a monitor ran on its schedule and when asked, then its runs are counted by kind and outcome, and the monitors due are shown', () => {
    expect(value('leadgen_monitor_runs_total', { kind: 'manual', outcome: 'started' })).toBeGreaterThanOrEqual(1);
    // Its first tick came while the run asked for was going (skipped) or after it (started).
    expect(value('leadgen_monitor_runs_total', { kind: 'scheduled' })).toBeGreaterThanOrEqual(1);
    expect(samples.some((s) => s.name === 'leadgen_monitors_due')).toBe(true);
  });

  it('when refusals and replays happened, then they are counted', () => {
    expect(value('leadgen_rate_limited_total', { limit: 'generate' })).toBeGreaterThanOrEqual(1);
    expect(value('leadgen_idempotent_replays_total')).toBeGreaterThanOrEqual(1);
  });
});
