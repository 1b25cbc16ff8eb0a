import { createAccount, createDatabase, purgeWebhookDeliveries, type Database } from '../src';
import { buildWebhookEndpoint } from '../../../test/factories';

// WEBHOOK_DELIVERY_RETENTION_DAYS (decision 053): the finished deliveries past it go with their attempts, in
// bounded batches; a pending one (its retry round, or a manual retry's) stays until it ends, and a younger one stays.
// The rows are dated in 2020 and the window ends in 2021, so other files' deliveries (made now) are never due.

let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 4 });
});
afterAll(() => db.$disconnect());

const NOW = new Date('2021-01-01T00:00:00Z');
const DAYS = 7;

async function delivery(endpointId: string, accountId: string, status: string, createdAt: string, attempts = 0): Promise<string> {
  const { rows } = await db.sql.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (account_id, endpoint_id, event_type, status, attempts, created_at, updated_at)
     VALUES ($1, $2, 'ping', $3::"WebhookDeliveryStatus", $4, $5, $5) RETURNING id`,
    [accountId, endpointId, status, attempts, createdAt],
  );
  const id = rows[0]!.id;
  for (let attempt = 1; attempt <= attempts; attempt++)
    await db.sql.query(
      `INSERT INTO webhook_attempts (delivery_id, delivery_created_at, attempt, url, started_at, response_status, latency_ms, succeeded)
       VALUES ($1, $3, $2, 'https://hooks.example.com/leadgen', $3, 500, 12, false)`,
      [id, attempt, createdAt],
    );
  return id;
}

const kept = async (ids: string[]) =>
  (await db.sql.query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE id = ANY($1) ORDER BY id', [ids])).rows.map((r) => r.id);
const attemptsOf = async (ids: string[]) =>
  (await db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = ANY($1)', [ids])).rows[0]!.n;

describe('webhook deliveries past WEBHOOK_DELIVERY_RETENTION_DAYS', () => {
  it('when the purge runs, then finished deliveries past it go with their attempts in batches, pending and younger ones stay', async () => {
    const account = await createAccount(db, 'webhook-retention');
    const { endpoint } = await buildWebhookEndpoint(db, account.id);
    const due = [
      await delivery(endpoint.id, account.id, 'succeeded', '2020-06-01T00:00:00Z', 1),
      await delivery(endpoint.id, account.id, 'failed', '2020-06-02T00:00:00Z', 3),
      await delivery(endpoint.id, account.id, 'failed', '2020-12-24T23:59:59Z', 2),
    ];
    const pending = await delivery(endpoint.id, account.id, 'pending', '2020-06-01T00:00:00Z', 2);
    const younger = await delivery(endpoint.id, account.id, 'succeeded', '2020-12-25T00:00:01Z', 1);
    expect(await attemptsOf(due)).toBe(6);

    // batches of 2: three due, so two statements and a third that finds none
    expect(await purgeWebhookDeliveries(db, DAYS, { batch: 2, now: NOW })).toMatchObject({ deliveries: 3, partitions: [] });
    expect(await kept([...due, pending, younger])).toEqual([pending, younger].sort());
    expect(await attemptsOf(due)).toBe(0);
    expect(await attemptsOf([pending, younger])).toBe(3);

    // a second run finds nothing; once the pending delivery has ended, it goes too
    expect(await purgeWebhookDeliveries(db, DAYS, { now: NOW })).toMatchObject({ deliveries: 0, partitions: [] });
    await db.sql.query(`UPDATE webhook_deliveries SET status = 'failed' WHERE id = $1`, [pending]);
    expect(await purgeWebhookDeliveries(db, DAYS, { now: NOW })).toMatchObject({ deliveries: 1, partitions: [] });
    expect(await kept([pending, younger])).toEqual([younger]);
  });

  it('when a retry makes a due delivery pending while a batch waits for its row, then the batch keeps it', async () => {
    const account = await createAccount(db, 'webhook-retention-race');
    const { endpoint } = await buildWebhookEndpoint(db, account.id);
    const id = await delivery(endpoint.id, account.id, 'failed', '2020-06-01T00:00:00Z', 1);
    const retry = await db.sql.connect();
    try {
      await retry.query('BEGIN');
      await retry.query(`UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0 WHERE id = $1 AND status <> 'pending'`, [id]);
      const purge = purgeWebhookDeliveries(db, DAYS, { now: NOW });
      // the purge's DELETE waits for the retry's row lock
      await new Promise((resolve) => setTimeout(resolve, 300));
      await retry.query('COMMIT');
      expect((await purge).deliveries).toBe(0);
    } finally {
      retry.release();
    }
    expect(await kept([id])).toEqual([id]);
  });
});
