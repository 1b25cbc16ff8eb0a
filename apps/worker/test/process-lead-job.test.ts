import { findJob, ledgerCreditSummary, creditSummary } from '@leadgen/db';
import type { LeadProvider } from '@leadgen/providers';
import { jobEventPublisher, producerConnection, redisKeys, closeRedis, type Job, type QueuePayloads } from '@leadgen/queue';
import { generate, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount } from '../../../test/factories';
import { createLeadJobHandler } from '../src/process-lead-job';

// A provider with a bug: what the handler does when the job's own code fails, attempt after attempt.
const buggy: LeadProvider<'google_maps'> = {
  source: 'google_maps',
  name: 'buggy',
  // eslint-disable-next-line require-yield
  async *search() {
    throw new TypeError("Cannot read properties of undefined (reading 'place')");
  },
};

describe('a job whose own code fails', () => {
  let world: TestWorld;
  let connection: ReturnType<typeof producerConnection>;
  beforeAll(async () => {
    world = await startWorld({ worker: false });
    connection = producerConnection(world.config.redis);
  });
  afterAll(async () => {
    await closeRedis(connection);
    await world.close();
  });

  const attempt = (jobId: string, accountId: string, attemptsMade: number) =>
    ({ data: { jobId, accountId, source: 'google_maps' }, attemptsMade, opts: { attempts: 5 } }) as unknown as Job<
      QueuePayloads['google_maps']
    >;

  it('when an attempt that is not the last fails, then BullMQ gets the error to retry and the job stays open', async () => {
    const account = await buildAccount(world.db, { credits: 1_000 });
    const res = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 5 }, { Prefer: 'respond-async' });
    const handler = createLeadJobHandler(buggy, {
      config: world.config,
      db: world.db,
      lifecycle: { ...world.api.deps.lifecycle, events: jobEventPublisher(connection, redisKeys(world.config.redis)) },
    });
    await expect(handler(attempt(res.body.jobId, account.accountId, 0), 'token', new AbortController().signal)).rejects.toThrow(TypeError);
    expect((await findJob(world.db, res.body.jobId))?.status).toBe('running');
  });

  it('when its last attempt fails, then the worker holding it settles it FAILED internal_error itself, reservation released', async () => {
    const account = await buildAccount(world.db, { credits: 1_000 });
    const res = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 5 }, { Prefer: 'respond-async' });
    const handler = createLeadJobHandler(buggy, {
      config: world.config,
      db: world.db,
      lifecycle: { ...world.api.deps.lifecycle, events: jobEventPublisher(connection, redisKeys(world.config.redis)) },
    });
    await handler(attempt(res.body.jobId, account.accountId, 4), 'token', new AbortController().signal);
    expect(await findJob(world.db, res.body.jobId)).toMatchObject({ status: 'FAILED', stopReason: 'internal_error', creditsCharged: 0 });
    expect(await creditSummary(world.db, account.accountId)).toEqual({ balance: 1_000, reserved: 0, available: 1_000 });
    expect(await ledgerCreditSummary(world.db, account.accountId)).toEqual(await creditSummary(world.db, account.accountId));
  });
});
