import { openLeadQueues } from '@leadgen/queue';
import { startWebhookRetentionSweep } from '../../apps/worker/src/webhook-retention-sweep';
import { buildAccount, buildWebhookEndpoint, type TestAccount } from '../factories';
import { startWorld, until, type TestWorld } from '../harness';

// WEBHOOK_DELIVERY_RETENTION_DAYS (decision 053): the workers' hourly sweep deletes the finished deliveries past it
// with their attempts; the API then answers 404 webhook_delivery_not_found for them, on the endpoint's routes and
// the job's alike, and still lists and refuses to retry (409) a pending one however old.
// The deliveries are dated in 2020: with 30 days, no other file's delivery (made today) is due.

describe('webhook deliveries past their retention', () => {
  let world: TestWorld;
  let account: TestAccount;

  beforeAll(async () => {
    world = await startWorld({ env: { WEBHOOK_DELIVERY_RETENTION_DAYS: '30' } });
    account = await buildAccount(world.db, { credits: 100 });
  });
  afterAll(async () => {
    await world?.close();
  });

  const insert = async (endpointId: string, status: string) =>
    (
      await world.db.sql.query<{ id: string }>(
        `WITH d AS (
           INSERT INTO webhook_deliveries (account_id, endpoint_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
           -- the pending one's next attempt a day away: the world's outbox sweep leaves it alone
           VALUES ($1, $2, 'ping', $3::"WebhookDeliveryStatus", 1, now() + interval '1 day', '2020-06-01T00:00:00Z', '2020-06-01T00:00:00Z') RETURNING id
         ), a AS (
           INSERT INTO webhook_attempts (delivery_id, delivery_created_at, attempt, url, started_at, response_status, latency_ms, succeeded)
           SELECT id, '2020-06-01T00:00:00Z', 1, 'https://hooks.example.com/leadgen', '2020-06-01T00:00:00Z', 500, 9, false FROM d
         )
         SELECT id FROM d`,
        [account.accountId, endpointId, status],
      )
    ).rows[0]!.id;

  it('when the sweep has run, then a finished delivery past it answers 404 and is not listed; a pending one is kept', async () => {
    const { endpoint } = await buildWebhookEndpoint(world.db, account.accountId);
    const old = await insert(endpoint.id, 'failed');
    const pending = await insert(endpoint.id, 'pending');
    const listed = async () =>
      ((await world.http.get(`/api/v1/webhooks/${endpoint.id}/deliveries`).set(account.auth)).body.items as Array<{ id: string }>).map(
        (d) => d.id,
      );
    // The world's worker sweeps once as it starts (its claim then holds for the hour), which may be after these rows
    // were written; a sweep under a prefix of its own runs once a minute here.
    expect(await listed()).toContain(pending);
    const queues = openLeadQueues({ ...world.config.redis, queuePrefix: `${world.config.redis.queuePrefix}-sweep` }, 'webhook-retention');
    const sweep = startWebhookRetentionSweep(world.db, queues, { days: world.config.webhooks.retentionDays, periodMs: 60_000 });
    try {
      await until('the old delivery swept', listed, (ids) => !ids.includes(old), 30_000);
    } finally {
      await sweep?.stop();
      await queues.close();
    }
    expect(await listed()).toEqual([pending]);
    const retried = await world.http.post(`/api/v1/webhooks/${endpoint.id}/deliveries/${old}/retry`).set(account.auth);
    expect(retried.status).toBe(404);
    expect(retried.body.code).toBe('webhook_delivery_not_found');
    const attempts = await world.db.sql.query('SELECT 1 FROM webhook_attempts WHERE delivery_id = $1', [old]);
    expect(attempts.rowCount).toBe(0);
    // The pending one, however old, is there and still pending: a retry of it is refused as ever.
    const again = await world.http.post(`/api/v1/webhooks/${endpoint.id}/deliveries/${pending}/retry`).set(account.auth);
    expect(again.status).toBe(409);
  });

  it('when the retention is unset, then there is no sweep', () => {
    expect(startWebhookRetentionSweep(world.db, null as never, { days: null })).toBeNull();
  });
});
