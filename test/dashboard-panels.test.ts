import { readFileSync } from 'node:fs';
import path from 'node:path';
import { metricsRoute, startOpsServer, collectProcessMetrics, type OpsServer } from '@leadgen/ops';
import { freePort, generate, startWorld, until, type TestWorld } from './harness';
import { buildAccount } from './factories';
import { emptyQueries, scrapedSeries } from './dashboard-series';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

// Issue 31, finding 15: four panels of the shipped dashboard stayed on "No data" with the sandbox (the failure
// ratio, enrichment fetches, webhook attempts, upstream calls per job). Here a new deployment on the sandbox
// runs one job with a webhook, Prometheus' view of its /metrics is built from two scrapes, and every query of
// every panel must select at least one series.
const DASHBOARD = path.resolve(__dirname, '../deploy/grafana/leadgen-overview.json');

describe('the shipped Grafana dashboard against a sandbox deployment’s /metrics', () => {
  let world: TestWorld;
  let ops: OpsServer;
  let receiver: WebhookReceiver;
  let exposition: string;
  let job: { status: string; upstreamCalls: Record<string, number> };

  beforeAll(async () => {
    world = await startWorld({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    receiver = await startWebhookReceiver();
    collectProcessMetrics();
    const routes = { '/metrics': metricsRoute };
    ops = (await startOpsServer({ host: '127.0.0.1', port: await freePort(), readiness: world.api.readiness, routes }))!;
    const account = await buildAccount(world.db, { credits: 1_000 });
    const answer = await generate(world, account, { category: 'bakery', state: 'FR', maxResults: 12, webhookUrl: receiver.url('/hook') });
    job = answer.body as typeof job;
    await receiver.waitFor(1);
    const scrape = async () => (exposition = await (await fetch(`http://127.0.0.1:${ops.port}/metrics`)).text());
    // The attempt is observed once its answer is read, a moment after the receiver saw it.
    await until('the webhook attempt observed', scrape, (text) => /^leadgen_webhook_attempt_duration_seconds_count\{/m.test(text));
  }, 60_000);

  afterAll(async () => {
    await ops?.close();
    await receiver?.close();
    await world?.close();
  });

  it('when a sandbox job ran, then its pages are counted in its upstreamCalls as a real upstream’s requests are', () => {
    expect(job.status).toBe('COMPLETE');
    expect(job.upstreamCalls).toEqual({ sandbox: expect.any(Number) });
    expect(job.upstreamCalls.sandbox).toBeGreaterThanOrEqual(2); // 12 leads, 10 a page
    expect(exposition).toMatch(/^leadgen_upstream_calls_per_job_count\{source="google_maps",upstream="sandbox"\} 1$/m);
  });

  it('when Prometheus has scraped it twice, then every query of every panel selects at least one series', () => {
    const { panels } = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
    };
    // The read replica's gauges exist only in an API with DATABASE_READ_URL (a process without one exports none: a 0
    // would read "reads on the primary"); the fault suite's read-replica.faults.ts reads them on a real standby.
    const queries = panels
      .flatMap((panel) => panel.targets.map((target) => ({ panel: panel.title, expr: target.expr })))
      .filter((q) => !q.expr.includes('leadgen_read_replica_'));
    expect(queries.length).toBeGreaterThan(30);
    const empty = emptyQueries(
      queries.map((q) => q.expr),
      scrapedSeries(exposition),
    );
    expect(queries.filter((q) => empty.includes(q.expr))).toEqual([]);
  });
});
