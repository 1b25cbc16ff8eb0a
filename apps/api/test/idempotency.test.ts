import { generate, idempotencyKey, pollUntilTerminal, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';

let world: TestWorld;
let account: TestAccount;

beforeAll(async () => {
  world = await startWorld();
  account = await buildAccount(world.db, { credits: 100_000 });
});
afterAll(() => world.close());

const body = { category: 'dentist', state: 'US', city: 'Boston', maxResults: 5 };

describe('Idempotency-Key', () => {
  it('when the same key comes with the same body, then the first job is replayed, not repeated', async () => {
    const key = idempotencyKey();
    const first = await generate(world, account, body, { 'Idempotency-Key': key });
    const again = await generate(world, account, body, { 'Idempotency-Key': key });
    expect(first.status).toBe(200);
    expect(first.get('Idempotent-Replayed')).toBeUndefined();
    expect(again.status).toBe(200);
    expect(again.get('Idempotent-Replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await world.db.job.count({ where: { accountId: account.accountId, request: { path: ['city'], equals: 'Boston' } } })).toBe(1);
  });

  it('when the replayed job is still running, then the replay answers with its current state', async () => {
    const key = idempotencyKey();
    const slow = { ...body, keyword: 'sandbox:delay=300', maxResults: 20 };
    const first = await generate(world, account, slow, { 'Idempotency-Key': key, Prefer: 'respond-async' });
    const again = await generate(world, account, slow, { 'Idempotency-Key': key, Prefer: 'respond-async' });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.get('Idempotent-Replayed')).toBe('true');
    expect(again.body.jobId).toBe(first.body.jobId);
    await pollUntilTerminal(world, account, first.body.jobId);
  });

  it('when the same key comes with the same body in another field order or with defaults spelt out, then it is the same request', async () => {
    const key = idempotencyKey();
    const first = await generate(
      world,
      account,
      { maxResults: 5, state: 'us', category: 'dentist', city: 'Boston' },
      { 'Idempotency-Key': key },
    );
    const again = await generate(world, account, { source: 'google_maps', ...body }, { 'Idempotency-Key': key });
    expect(again.get('Idempotent-Replayed')).toBe('true');
    expect(again.body.jobId).toBe(first.body.jobId);
  });

  it('when the same key comes with a different body, then 422 idempotency_key_reused', async () => {
    const key = idempotencyKey();
    await generate(world, account, body, { 'Idempotency-Key': key });
    const reused = await generate(world, account, { ...body, maxResults: 6 }, { 'Idempotency-Key': key });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
  });

  it('when the key is quoted as the IETF draft writes it, then it is the same key as the bare form', async () => {
    const key = idempotencyKey();
    const first = await generate(world, account, body, { 'Idempotency-Key': key });
    const quoted = await generate(world, account, body, { 'Idempotency-Key': `"${key}"` });
    expect(quoted.get('Idempotent-Replayed')).toBe('true');
    expect(quoted.body.jobId).toBe(first.body.jobId);
  });

  it('when 20 first calls with one key arrive at once, then exactly one job is made and every answer names it', async () => {
    const who = await buildAccount(world.db, { credits: 10_000 });
    const key = idempotencyKey();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => generate(world, who, { ...body, maxResults: 3 }, { 'Idempotency-Key': key })),
    );
    const jobs = await world.db.job.findMany({ where: { accountId: who.accountId } });
    expect(jobs).toHaveLength(1);
    // The losers wait at the key for the winner's statement and get the replay (decision 003): never a 409.
    for (const answer of answers) {
      expect([200, 202]).toContain(answer.status);
      expect(answer.body.jobId).toBe(jobs[0]!.id);
    }
    expect(answers.filter((a) => a.get('Idempotent-Replayed') !== 'true')).toHaveLength(1);
    // Reserved once, charged once: 3 leads at 2 credits is under the minimum of 10.
    const account = await world.http.get('/api/v1/account').set(who.auth);
    expect(account.body.credits).toEqual({ balance: 9_990, reserved: 0, available: 9_990 });
  });

  it('when two accounts use the same key, then each gets its own job', async () => {
    const other = await buildAccount(world.db, { credits: 1_000 });
    const key = idempotencyKey();
    const mine = await generate(world, account, body, { 'Idempotency-Key': key });
    const theirs = await generate(world, other, { ...body, maxResults: 7 }, { 'Idempotency-Key': key });
    expect(theirs.status).toBe(200);
    expect(theirs.get('Idempotent-Replayed')).toBeUndefined();
    expect(theirs.body.jobId).not.toBe(mine.body.jobId);
  });

  it('when a request is refused before a job exists (402), then the key stays free', async () => {
    const poor = await buildAccount(world.db, { credits: 10 });
    const key = idempotencyKey();
    const refused = await generate(world, poor, { ...body, maxResults: 50 }, { 'Idempotency-Key': key });
    expect(refused.status).toBe(402);
    const accepted = await generate(world, poor, { ...body, maxResults: 5 }, { 'Idempotency-Key': key });
    expect(accepted.status).toBe(200);
    expect(accepted.get('Idempotent-Replayed')).toBeUndefined();
  });

  it('when the key has expired, then it may be used again for a new job', async () => {
    const key = idempotencyKey();
    const first = await generate(world, account, body, { 'Idempotency-Key': key });
    await world.db.idempotencyKey.update({
      where: { accountId_key: { accountId: account.accountId, key } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const fresh = await generate(world, account, { ...body, maxResults: 4 }, { 'Idempotency-Key': key });
    expect(fresh.status).toBe(200);
    expect(fresh.get('Idempotent-Replayed')).toBeUndefined();
    expect(fresh.body.jobId).not.toBe(first.body.jobId);
  });
});
