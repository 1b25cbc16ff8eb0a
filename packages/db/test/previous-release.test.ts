import { chargeFor, JOB_EVENT_OF, newId } from '@leadgen/domain';
import { createDatabase, creditSummary, hashApiKey, type Database } from '../src';
import { buildAccount } from '../../../test/factories';
import { readPreviousRelease, SIGNATURES_SQL } from './previous-release';

// The previous release's statements, run against the schema this code migrates to (the test database,
// migrated by the test setup): during a rolling deploy its pods keep sending them.
const previous = readPreviousRelease();
const statement = (name: string): string => {
  const found = previous.statements.get(name);
  if (!found) throw new Error(`no statement ${name} in the fixture`);
  return found.sql;
};

let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 2 });
});
afterAll(() => db.$disconnect());

const request = { source: 'google_maps', category: 'dentist', state: 'US', maxResults: 3 };

/** The previous release's create_job: `cap` its share of open released jobs (0: released at once). */
async function createJob(accountId: string, jobId: string, options: { webhookUrl?: string; cap?: number } = {}) {
  const { webhookUrl = null, cap = 0 } = options;
  const { rows } = await db.sql.query(statement('create_job'), [
    accountId,
    `key-${jobId}`,
    'fp',
    jobId,
    24,
    10,
    newId.resultSet(),
    'google_maps',
    JSON.stringify({ ...request, webhookUrl }),
    3,
    webhookUrl,
    webhookUrl ? 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' : null,
    cap,
  ]);
  return rows[0];
}

const settle = async (jobId: string, status: keyof typeof JOB_EVENT_OF, delivered: number, charge: number, cap: number | null = null) =>
  (await db.sql.query(statement('settle_job'), [jobId, status, null, charge, delivered, JOB_EVENT_OF[status], cap])).rows[0];

describe('the previous release against this schema (expand/contract)', () => {
  it('when the fixture is read, then each statement lists every function of the schema it calls', async () => {
    expect([...previous.statements.keys()].sort()).toEqual([
      'account_credits',
      'authenticate_api_key',
      'borrow_held_jobs',
      'commit_page',
      'commit_slice',
      'create_batch',
      'create_job',
      'delete_account',
      'erased_subject_leads',
      'export_result_set_csv',
      'open_job',
      'purge_account_rows',
      'read_job',
      'record_upstream_calls',
      'release_held_jobs',
      'settle_job',
      'split_batch_tile',
      'start_job',
      'withdraw_job',
    ]);
    const functions = new Set(
      [
        ...(await db.sql.query<{ signature: string }>(SIGNATURES_SQL)).rows.map((row) => row.signature),
        ...[...previous.statements.values()].flatMap((found) => found.calls),
      ].map((signature) => signature.slice(0, signature.indexOf('('))),
    );
    for (const [name, found] of previous.statements) {
      const named = [...found.sql.matchAll(/\b(\w+)\(/g)].map((match) => match[1]!).filter((called) => functions.has(called));
      const listed = found.calls.map((signature) => signature.slice(0, signature.indexOf('(')));
      expect({ name, calls: [...new Set(named)].sort() }).toEqual({ name, calls: [...new Set(listed)].sort() });
    }
  });

  it('when the previous release authenticates, creates, opens, commits, settles, reads and exports a job, then each statement answers as it expects', async () => {
    const { accountId, apiKey } = await buildAccount(db, { credits: 100 });
    const [key] = (await db.sql.query(statement('authenticate_api_key'), [hashApiKey(apiKey)])).rows;
    expect(key).toMatchObject({ o_id: accountId, o_key_epoch: '0' });

    const jobId = newId.job();
    expect(await createJob(accountId, jobId, { webhookUrl: 'https://hooks.example.com/leadgen' })).toMatchObject({
      o_outcome: 'created',
      o_job_id: jobId,
      o_released: [jobId],
    });
    // A queue entry taken before: the start is written at once.
    expect((await db.sql.query(statement('open_job'), [jobId, 'sandbox', true])).rows[0]).toMatchObject({
      id: jobId,
      status: 'running',
      provider: 'sandbox',
      o_refusal: null,
      o_started: true,
    });

    const page = JSON.stringify(['a', 'b'].map((k) => ({ k, d: { businessName: k, email: `${k}@example.com` } })));
    expect((await db.sql.query(statement('commit_page'), [jobId, page, 'next', 1, '{"sandbox":1}'])).rows[0]).toEqual({
      o_delivered_count: 2,
      o_requested_count: 3,
      o_needs_matches: false,
    });
    expect((await db.sql.query(statement('record_upstream_calls'), [jobId, '{"sandbox":2}'])).rows[0]).toEqual({ recorded: true });

    const settled = await settle(jobId, 'PARTIAL', 2, 10);
    expect(settled).toMatchObject({ id: jobId, status: 'PARTIAL', credits_charged: 10, delivered_count: 2, released_jobs: [] });
    expect(settled.webhook_deliveries).toHaveLength(1); // the job's own webhookUrl

    const [read] = (await db.sql.query(statement('read_job'), [jobId, accountId])).rows;
    expect(read).toMatchObject({ id: jobId, status: 'PARTIAL', skipped_filtered: 1, upstream_calls: { sandbox: 3 } });
    expect(JSON.parse(read.leads_json)).toEqual([
      { businessName: 'a', email: 'a@example.com' },
      { businessName: 'b', email: 'b@example.com' },
    ]);
    expect((await db.sql.query(statement('account_credits'), [accountId])).rows[0]).toEqual({ balance: '90', reserved: '0' });

    const exported = (await db.sql.query(statement('export_result_set_csv'), [jobId, accountId, -1, 10])).rows;
    expect(exported.map((row) => [row.id, row.position])).toEqual([
      [jobId, 0],
      [jobId, 1],
    ]);
    expect(exported[0].lead_csv_row).toContain('a@example.com');

    const erased = await db.sql.query(statement('erased_subject_leads'), [['e:b@example.com'], '', -1, null]);
    expect(erased.rows.filter((row) => row.account_id === accountId).map((row) => row.data)).toEqual([
      { businessName: 'b', email: 'b@example.com' },
    ]);
  });

  it('when the previous release defers a start and its one slice completes the job, then the slice starts, commits and settles it', async () => {
    const { accountId } = await buildAccount(db, { credits: 100 });
    const jobId = newId.job();
    await createJob(accountId, jobId);
    expect((await db.sql.query(statement('open_job'), [jobId, 'sandbox', false])).rows[0]).toMatchObject({
      id: jobId,
      status: 'queued',
      o_started: false,
    });
    const page = JSON.stringify(['a', 'b', 'c'].map((k) => ({ k, d: { businessName: k } })));
    const [slice] = (
      await db.sql.query(statement('commit_slice'), [
        jobId,
        page,
        null,
        0,
        '{}',
        'sandbox',
        new Date(),
        chargeFor('google_maps', 3),
        JOB_EVENT_OF.COMPLETE,
        null,
      ])
    ).rows;
    expect(slice).toMatchObject({
      o_delivered_count: 3,
      o_requested_count: 3,
      o_needs_matches: false,
      id: jobId,
      status: 'COMPLETE',
      provider: 'sandbox',
      credits_charged: chargeFor('google_maps', 3),
      released_jobs: [],
    });
  });

  it('when the previous release withdraws a creation whose enqueue failed, then the job, its key and its reservation are gone', async () => {
    const { accountId } = await buildAccount(db, { credits: 100 });
    const jobId = newId.job();
    await createJob(accountId, jobId);
    expect((await db.sql.query(statement('withdraw_job'), [jobId])).rows[0]).toEqual({ withdrawn: 1 });
    expect(await creditSummary(db, accountId)).toEqual({ balance: 100, reserved: 0, available: 100 });
  });

  it('when the previous release holds jobs over its share, then its settlements, its sweep and its borrowed slots release them', async () => {
    const { accountId } = await buildAccount(db, { credits: 1000 });
    const [open, heldBySettlement, heldBySweep] = [newId.job(), newId.job(), newId.job()];
    expect(await createJob(accountId, open, { cap: 1 })).toMatchObject({ o_released: [open] });
    expect(await createJob(accountId, heldBySettlement, { cap: 1 })).toMatchObject({ o_released: [] });
    expect(await createJob(accountId, heldBySweep, { cap: 1 })).toMatchObject({ o_released: [] });

    expect(await settle(open, 'CANCELLED', 0, 0, 1)).toMatchObject({ released_jobs: [heldBySettlement] });
    expect((await db.sql.query(statement('release_held_jobs'), [accountId, 'google_maps', 2])).rows[0]).toEqual({
      released: [heldBySweep],
    });

    const borrowed = newId.job();
    await createJob(accountId, borrowed, { cap: 1 });
    const { rows } = await db.sql.query(statement('borrow_held_jobs'), ['google_maps', 1000]);
    expect(rows).toContainEqual({ o_job_id: borrowed, o_account_id: accountId });
  });

  it('when the previous release creates a batch and starts its child, then the child is reserved as it starts', async () => {
    const { accountId } = await buildAccount(db, { credits: 100 });
    const [batchId, childId] = [newId.batch(), newId.job()];
    const children = [{ jobId: childId, resultSetId: newId.resultSet(), source: 'google_maps', request, requestedCount: 3, reserve: 10 }];
    const [created] = (
      await db.sql.query(statement('create_batch'), [
        accountId,
        `key-${batchId}`,
        'fp',
        24,
        batchId,
        null,
        false,
        null,
        null,
        null,
        10,
        JSON.stringify(children),
      ])
    ).rows;
    expect(created).toMatchObject({ o_outcome: 'created', o_batch_id: batchId });
    expect((await db.sql.query(statement('start_job'), [childId, 'sandbox', null])).rows[0]).toMatchObject({
      id: childId,
      batch_id: batchId,
      credits_reserved: 10,
      o_refusal: null,
    });
    expect(await creditSummary(db, accountId)).toEqual({ balance: 100, reserved: 10, available: 90 });
    // Not an area batch: the tile it names is not there, and nothing is added.
    expect((await db.sql.query(statement('split_batch_tile'), [batchId, '0', 'done', 0, 0, '[]'])).rows).toEqual([]);
  });

  it('when the previous release purges and deletes an account without open jobs, then each answers with what it deleted', async () => {
    const { accountId } = await buildAccount(db, { credits: 100 });
    const jobId = newId.job();
    await createJob(accountId, jobId);
    expect(await settle(jobId, 'EMPTY', 0, 0)).toMatchObject({ status: 'EMPTY' });
    expect((await db.sql.query(statement('purge_account_rows'), [accountId, 1000])).rows[0]).toMatchObject({ o_jobs: 1 });
    expect((await db.sql.query(statement('delete_account'), [accountId])).rows[0]).toMatchObject({
      o_outcome: 'deleted',
      o_jobs: 0,
      o_granted: '100',
      o_balance: '100',
    });
    // all of it in that one statement, its ledger included (this release takes the ledger in batches, decision 043)
    const { rows } = await db.sql.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM accounts WHERE id = $1) + (SELECT count(*) FROM credit_ledger WHERE account_id = $1)
            + (SELECT count(*) FROM account_deletions WHERE account_id = $1) AS n`,
      [accountId],
    );
    expect(Number(rows[0]!.n)).toBe(0);
  });
});
