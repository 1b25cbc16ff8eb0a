import { newId, reservationFor, type GenerationRequest, type Lead } from '@leadgen/domain';
import {
  commitPage,
  insertBatch,
  createDatabase,
  insertJob,
  creditSummary,
  deleteAccount,
  findCreditDiscrepancies,
  grantCredits,
  ledgerCreditSummary,
  markReleased,
  recordSettlement,
  startJob,
  type Database,
} from '../src';
import { buildAccount } from '../../../test/factories';

// An account's credit counters are spread over stripes (prisma/functions/reserve_credits.sql): these race
// what an API process and two workers do to one account at once, on pools of their own, and check the
// guarantees the stripes must keep: never overdrawn, refusals exact, sums equal to the ledger.
let api: Database;
let workers: Database[];
beforeAll(() => {
  api = createDatabase(process.env.DATABASE_URL!, { poolSize: 10 });
  workers = [createDatabase(process.env.DATABASE_URL!, { poolSize: 8 }), createDatabase(process.env.DATABASE_URL!, { poolSize: 8 })];
});
afterAll(() => Promise.all([api, ...workers].map((d) => d.$disconnect())));

const request = (maxResults: number): GenerationRequest => ({ source: 'google_maps', category: 'dentist', state: 'US', maxResults });

async function create(accountId: string, maxResults: number, share = 0) {
  const jobId = newId.job();
  const outcome = await insertJob(api, {
    share,
    accountId,
    idempotencyKey: jobId,
    fingerprint: 'fp',
    idempotencyTtlHours: 1,
    jobId,
    resultSetId: newId.resultSet(),
    request: request(maxResults),
    creditsReserved: reservationFor('google_maps', maxResults),
  });
  return { ...outcome, jobId };
}

/** A worker's end of a job: `delivered` leads committed, then the settlement (PARTIAL or COMPLETE, charged for them). */
async function finish(db: Database, jobId: string, delivered: number, share = 0): Promise<void> {
  await startJob(db, jobId, 'sandbox');
  if (delivered > 0)
    await commitPage(
      db,
      jobId,
      Array.from({ length: delivered }, (_, i) => ({ dedupKey: `${jobId}-${i}`, lead: { businessName: `b${i}` } as unknown as Lead })),
      null,
    );
  await recordSettlement(db, jobId, { kind: 'finished' }, undefined, share);
}

async function lockAccountRow(accountId: string): Promise<void> {
  const client = await api.sql.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE', [accountId]);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

async function stripes(accountId: string) {
  const { rows } = await api.sql.query<{ stripe: number; balance: string; reserved: string }>(
    'SELECT stripe, balance, reserved FROM credit_stripes WHERE account_id = $1 ORDER BY stripe',
    [accountId],
  );
  return rows.map((r) => ({ stripe: r.stripe, available: Number(r.balance) - Number(r.reserved) }));
}

async function expectLedgerAgrees(accountId: string) {
  expect(await creditSummary(api, accountId)).toEqual(await ledgerCreditSummary(api, accountId));
  expect((await findCreditDiscrepancies(api)).filter((d) => d.accountId === accountId)).toEqual([]);
}

describe('credit stripes under concurrency', () => {
  it('when more creations race on one account than its credits cover, then exactly as many as fit are created and it is never overdrawn', async () => {
    const { accountId } = await buildAccount(api, { credits: 1_000 });
    // 60 creations of 50 credits each (25 leads) against 1,000: exactly 20 fit, whatever the interleaving.
    const outcomes = await Promise.all(Array.from({ length: 60 }, () => create(accountId, 25)));
    const created = outcomes.filter((o) => o.kind === 'created');
    const refused = outcomes.filter((o) => o.kind === 'insufficient_credits');
    expect(created).toHaveLength(20);
    expect(refused).toHaveLength(40);
    // A refusal answers what was available when it was decided: never enough.
    for (const r of refused) if (r.kind === 'insufficient_credits') expect(r.available).toBeLessThan(50);
    expect(await creditSummary(api, accountId)).toEqual({ balance: 1_000, reserved: 1_000, available: 0 });
    for (const s of await stripes(accountId)) expect(s.available).toBeGreaterThanOrEqual(0);
    await expectLedgerAgrees(accountId);
  });

  it('when two workers settle while the API creates on one account, then balance and reserved are exact and every stripe stays covered', async () => {
    const { accountId } = await buildAccount(api, { credits: 20_000 });
    const first = await Promise.all(Array.from({ length: 30 }, () => create(accountId, 25)));
    expect(first.every((o) => o.kind === 'created')).toBe(true);
    // Settling the first 30 (2 leads each: the 10-credit minimum) on two workers, while 30 more are created.
    const [settled, second] = await Promise.all([
      Promise.all(first.map((o, i) => finish(workers[i % 2]!, o.jobId, 2))),
      Promise.all(Array.from({ length: 30 }, () => create(accountId, 25))),
    ]);
    expect(settled).toHaveLength(30);
    expect(second.every((o) => o.kind === 'created')).toBe(true);
    expect(await creditSummary(api, accountId)).toEqual({ balance: 20_000 - 30 * 10, reserved: 30 * 50, available: 20_000 - 300 - 1_500 });
    await Promise.all(second.map((o, i) => finish(workers[i % 2]!, o.jobId, 25))); // COMPLETE: 50 each
    expect(await creditSummary(api, accountId)).toEqual({ balance: 20_000 - 300 - 1_500, reserved: 0, available: 18_200 });
    for (const s of await stripes(accountId)) expect(s.available).toBeGreaterThanOrEqual(0);
    await expectLedgerAgrees(accountId);
  });

  it('when a nearly spent account is hammered by creations and settlements, then no call fails, nothing is overdrawn and the ledger adds up', async () => {
    const { accountId } = await buildAccount(api, { credits: 500 });
    let created = 0;
    // Rounds of 20 creations racing 2 workers' settlements of the round before: the stripes run short
    // and gather again and again; a deadlock between gathers must be retried, never surface.
    let open: string[] = [];
    for (let round = 0; round < 6; round += 1) {
      const [outcomes] = await Promise.all([
        Promise.all(Array.from({ length: 20 }, () => create(accountId, 10))), // 20 credits each
        Promise.all(open.map((jobId, i) => finish(workers[i % 2]!, jobId, i % 3))), // charged 0 or 10
      ]);
      open = outcomes.filter((o) => o.kind === 'created').map((o) => o.jobId);
      created += open.length;
      const summary = await creditSummary(api, accountId);
      expect(summary.available).toBeGreaterThanOrEqual(0);
      expect(summary.reserved).toBe(open.length * 20);
    }
    expect(created).toBeGreaterThan(0);
    await Promise.all(open.map((jobId, i) => finish(workers[i % 2]!, jobId, 0)));
    const { rows } = await api.sql.query<{ charged: string }>(
      'SELECT COALESCE(sum(credits_charged), 0) AS charged FROM jobs WHERE account_id = $1',
      [accountId],
    );
    expect(await creditSummary(api, accountId)).toEqual({
      balance: 500 - Number(rows[0]!.charged),
      reserved: 0,
      available: 500 - Number(rows[0]!.charged),
    });
    await expectLedgerAgrees(accountId);
  });

  it('when the credits are spread over the stripes, then a reservation bigger than any one stripe gathers them, and one bigger than all is refused with the exact sum', async () => {
    const { accountId } = await buildAccount(api, { credits: 1_000 });
    const small = await create(accountId, 1); // 10 credits: the first creation makes the stripes and spreads 990
    expect(small.kind).toBe('created');
    const spread = await stripes(accountId);
    expect(spread.length).toBeGreaterThan(1);
    expect(Math.max(...spread.map((s) => s.available))).toBeLessThan(900);
    expect(await create(accountId, 450)).toMatchObject({ kind: 'created' }); // 900 of the 990 left
    expect(await create(accountId, 46)).toEqual({ kind: 'insufficient_credits', available: 90, jobId: expect.any(String) });
    // A grant lands on the account row's base part; the next reservation that needs it gathers it.
    await grantCredits(api, accountId, 200);
    expect(await create(accountId, 140)).toMatchObject({ kind: 'created' }); // 280 of 290
    expect(await creditSummary(api, accountId)).toEqual({ balance: 1_200, reserved: 1_190, available: 10 });
    await expectLedgerAgrees(accountId);
  });

  it('when a settlement charges more than the job reserved, then the stripe refuses it rather than overdraw', async () => {
    const { accountId } = await buildAccount(api, { credits: 100 });
    await create(accountId, 5); // makes the stripes
    await expect(api.sql.query('SELECT settle_credits($1, $2, 200, 10)', [accountId, 'job_x'])).rejects.toMatchObject({ code: '23514' });
  });

  it('when an account has no stripes yet (its jobs predate them), then a settlement lands on the account row', async () => {
    const { accountId } = await buildAccount(api, { credits: 100 });
    // The previous release's reservation: on the account row, with its ledger row.
    await api.sql.query(
      `WITH j AS (INSERT INTO jobs (id, account_id, result_set_id, source, request, requested_count, credits_reserved)
                  VALUES ($2, $1, $3, 'google_maps', $4, 5, 10) RETURNING id)
       , l AS (INSERT INTO credit_ledger (account_id, job_id, kind, amount) SELECT $1, id, 'reserve', 10 FROM j)
       UPDATE accounts SET reserved = reserved + 10 WHERE id = $1`,
      [accountId, newId.job(), newId.resultSet(), JSON.stringify(request(5))],
    );
    const { rows } = await api.sql.query<{ jobid: string }>('SELECT id AS jobid FROM jobs WHERE account_id = $1', [accountId]);
    expect(await stripes(accountId)).toEqual([]);
    await finish(workers[0]!, rows[0]!.jobid, 0);
    expect(await creditSummary(api, accountId)).toEqual({ balance: 100, reserved: 0, available: 100 });
    await expectLedgerAgrees(accountId);
  });

  // Lock order (docs/decisions/023-redis-topologies.md): every path takes the account row no more strongly than
  // KEY SHARE before a stripe, the gather alone takes it FOR NO KEY UPDATE and then every stripe, fair release an
  // advisory lock after the stripe, a deletion FOR UPDATE before anything. A cycle would surface here as
  // deadlock_detected (40P01) after deadlock_timeout.
  it('when creations with fair release, batch children starting, settlements that release, grants and monitor-like account locks race on one nearly spent account, then nothing deadlocks, nothing is overdrawn and the ledger adds up', async () => {
    const { accountId } = await buildAccount(api, { credits: 1_500 });
    const fair = 4;
    const batchId = newId.batch();
    const children = Array.from({ length: 30 }, () => ({
      jobId: newId.job(),
      resultSetId: newId.resultSet(),
      request: request(25),
      reserve: reservationFor('google_maps', 25),
    }));
    const batch = await insertBatch(api, {
      accountId,
      idempotencyKey: batchId,
      fingerprint: 'fp',
      idempotencyTtlHours: 1,
      batchId,
      name: null,
      excludeDelivered: false,
      maxCredits: null,
      webhookUrl: null,
      children,
    });
    expect(batch.kind).toBe('created');
    const first = await Promise.all(Array.from({ length: 10 }, () => create(accountId, 25, fair)));
    const opened = first.filter((o) => o.kind === 'created').map((o) => o.jobId);
    expect(opened).toHaveLength(10);
    const errors: unknown[] = [];
    const caught = <T>(p: Promise<T>) => p.catch((error: unknown) => void errors.push(error));
    const [, starts, second] = await Promise.all([
      // settlements of the first ten on two workers, each releasing the account's next held job
      Promise.all(opened.map((jobId, i) => caught(finish(workers[i % 2]!, jobId, i % 3, fair)))),
      // the batch's children reserving as they start (1,000 of 1,500 are held by the first ten meanwhile)
      Promise.all(children.map((c, i) => caught(startJob(workers[i % 2]!, c.jobId, 'sandbox')))),
      // more creations, which gather and refuse as the account runs short
      Promise.all(Array.from({ length: 20 }, () => caught(create(accountId, 25, fair)))),
      Promise.all(Array.from({ length: 5 }, () => caught(grantCredits(api, accountId, 40)))),
      Promise.all(Array.from({ length: 5 }, () => caught(markReleased(api, accountId, 'google_maps', fair)))),
      // what a monitor's or an endpoint's creation takes to count under (monitors.ts, webhook-endpoints.ts)
      Promise.all(Array.from({ length: 5 }, () => caught(lockAccountRow(accountId)))),
    ]);
    expect(errors).toEqual([]);
    const started = (starts as Array<Awaited<ReturnType<typeof startJob>> | undefined>).filter((s) => s?.kind === 'started');
    const refused = (starts as Array<Awaited<ReturnType<typeof startJob>> | undefined>).filter((s) => s?.kind === 'refused');
    expect(started.length + refused.length).toBe(30);
    expect(started.length).toBeGreaterThan(0);
    expect((second as unknown[]).length).toBe(20);
    const summary = await creditSummary(api, accountId);
    expect(summary.available).toBeGreaterThanOrEqual(0);
    for (const s of await stripes(accountId)) expect(s.available).toBeGreaterThanOrEqual(0);
    await expectLedgerAgrees(accountId);
  });

  it('when an account is deleted while creations race on it, then each creation is created, refused or fails on the gone account, never deadlocks, and the deletion takes its stripes', async () => {
    for (let round = 0; round < 3; round += 1) {
      const { accountId } = await buildAccount(api, { credits: 1_000 });
      await create(accountId, 1).then((o) => finish(workers[0]!, o.jobId, 0)); // the account has stripes
      const [outcomes, deletion] = await Promise.all([
        Promise.all(
          Array.from({ length: 15 }, () =>
            create(accountId, 5).then(
              (o) => o.kind,
              (error: { code?: string }) => `error ${error.code}`,
            ),
          ),
        ),
        new Promise((r) => setTimeout(r, round * 3)).then(() => deleteAccount(workers[1]!, accountId)),
      ]);
      // 23503: the creation came after the deletion committed (the account's keys are revoked first in the admin command)
      for (const o of outcomes) expect(['created', 'insufficient_credits', 'error 23503']).toContain(o);
      if (deletion.outcome === 'deleted') {
        const { rows } = await api.sql.query<{ n: number }>(
          `SELECT (SELECT count(*) FROM credit_stripes WHERE account_id = $1) + (SELECT count(*) FROM credit_ledger WHERE account_id = $1) AS n`,
          [accountId],
        );
        expect(Number(rows[0]!.n)).toBe(0);
      } else {
        expect(deletion.outcome).toBe('open_jobs');
        await expectLedgerAgrees(accountId);
      }
    }
  });
});
