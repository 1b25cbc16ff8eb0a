import { newId, newWebhookSecret, reservationFor, type GenerationRequest, type SubscribableEvent } from '@leadgen/domain';
import { createAccount, createDatabase, createJob, grantCredits, settleJob, updateWebhookEndpoint, type Database } from '../src';
import { buildWebhookEndpoint } from '../../../test/factories';

// The outbox (decision 016): a job's event is recorded by the statement that writes its terminal
// status, for exactly the targets in force then, and never for a job that did not end.

let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 4 });
});
afterAll(() => db.$disconnect());

async function newAccount(): Promise<string> {
  const account = await createAccount(db, 'outbox');
  await grantCredits(db, account.id, 10_000);
  return account.id;
}

async function create(accountId: string, extra: Partial<GenerationRequest> = {}, enqueue: () => Promise<void> = async () => undefined) {
  const jobId = newId.job();
  const request: GenerationRequest = { source: 'google_maps', category: 'dentist', state: 'US', maxResults: 5, ...extra };
  const created = await createJob(
    db,
    {
      accountId,
      idempotencyKey: jobId,
      fingerprint: jobId,
      idempotencyTtlHours: 1,
      jobId,
      resultSetId: newId.resultSet(),
      request,
      creditsReserved: reservationFor('google_maps', 5),
      webhookSecretCandidate: newWebhookSecret(),
    },
    enqueue,
  );
  return { jobId, created };
}

const endpoint = async (accountId: string, events: SubscribableEvent[]) =>
  (await buildWebhookEndpoint(db, accountId, { url: 'https://hooks.example/x', events })).endpoint;

const deliveriesOf = (jobId: string) =>
  db.sql
    .query<{ endpoint_id: string | null; url: string | null; event_type: string }>(
      'SELECT endpoint_id, url, event_type FROM webhook_deliveries WHERE job_id = $1 ORDER BY endpoint_id NULLS LAST',
      [jobId],
    )
    .then((r) => r.rows);

describe('the webhook outbox', () => {
  it('when a job settles, then one delivery per enabled endpoint subscribed to its event and one for its webhookUrl are written with it, and their ids returned', async () => {
    const accountId = await newAccount();
    const subscribed = await endpoint(accountId, ['job.empty', 'job.failed']);
    const other = await endpoint(accountId, ['job.completed']);
    const disabled = await endpoint(accountId, ['job.empty']);
    await updateWebhookEndpoint(db, accountId, disabled.id, { enabled: false });
    const { jobId } = await create(accountId, { webhookUrl: 'https://own.example/hook' });

    const settlement = await settleJob(db, jobId, { kind: 'finished' });
    expect(settlement?.job.status).toBe('EMPTY');
    expect(settlement?.webhookDeliveryIds).toHaveLength(2);
    for (const id of settlement!.webhookDeliveryIds) expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(await deliveriesOf(jobId)).toEqual([
      { endpoint_id: subscribed.id, url: null, event_type: 'job.empty' },
      { endpoint_id: null, url: 'https://own.example/hook', event_type: 'job.empty' },
    ]);
    expect(other.id).not.toBe(subscribed.id);

    // A terminal status is written once, and so is its event.
    const again = await settleJob(db, jobId, { kind: 'cancelled' });
    expect(again).toMatchObject({ settled: false, webhookDeliveryIds: [] });
    expect(await deliveriesOf(jobId)).toHaveLength(2);
  });

  it('when an account has no endpoints and the job no webhookUrl, then its settlement records nothing', async () => {
    const accountId = await newAccount();
    const { jobId } = await create(accountId);
    expect(await settleJob(db, jobId, { kind: 'cancelled' })).toMatchObject({ settled: true, webhookDeliveryIds: [] });
    expect(await deliveriesOf(jobId)).toEqual([]);
  });

  it('when a creation is withdrawn because its enqueue failed, then no event exists, and the default secret was still made once', async () => {
    const accountId = await newAccount();
    await endpoint(accountId, ['job.cancelled', 'job.failed']);
    const withdrawn = create(accountId, { webhookUrl: 'https://own.example/hook' }, async () => {
      throw new Error('redis refused');
    });
    await expect(withdrawn).rejects.toThrow('redis refused');
    expect(await db.sql.query('SELECT 1 FROM webhook_deliveries WHERE account_id = $1', [accountId]).then((r) => r.rowCount)).toBe(0);
    const first = await db.accountWebhookSecret.findUniqueOrThrow({ where: { accountId } });
    await create(accountId, { webhookUrl: 'https://own.example/other' });
    expect((await db.accountWebhookSecret.findUniqueOrThrow({ where: { accountId } })).secret).toBe(first.secret);
  });
});
