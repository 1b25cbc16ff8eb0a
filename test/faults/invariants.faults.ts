import { Client } from 'pg';
import { generate, idempotencyKey, pollUntilTerminal, startWorld, type TestWorld } from '../harness';
import { buildAccount } from '../factories';
import { checkInvariants } from './invariants';

// The checker is only worth something if it fails when a guarantee is broken: break each on purpose.
let world: TestWorld;
let sql: Client;
beforeAll(async () => {
  world = await startWorld({ env: { SANDBOX_PAGE_DELAY_MS: '1' } });
  sql = new Client({ connectionString: world.config.database.url });
  await sql.connect();
});
afterAll(async () => {
  await sql.end();
  await world.close();
});

/** An account of its own with one finished job of 5 leads, so tampering touches nothing else. */
async function finishedJob(): Promise<{ accountId: string; jobId: string }> {
  const account = await buildAccount(world.db, { credits: 1_000 });
  const res = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 5 }, { Prefer: 'respond-async' });
  expect(res.status).toBe(202);
  const job = await pollUntilTerminal(world, account, res.body.jobId as string);
  expect(job.status).toBe('COMPLETE');
  return { accountId: account.accountId, jobId: job.jobId as string };
}

it('when nothing was tampered with, then no invariant is broken', async () => {
  const { accountId } = await finishedJob();
  expect(await checkInvariants(world.config.database.url, { accountIds: [accountId] })).toEqual([]);
});

const q = (text: string) => (jobId: string, accountId: string) => [text, text.includes('$2') ? [jobId, accountId] : [jobId]] as const;

it.each([
  ['a lead is lost', q('DELETE FROM leads WHERE job_id = $1 AND position = 4'), ['delivered_count_matches_leads']],
  ['a job counts an erasure that did not happen', q('UPDATE jobs SET leads_erased = 1 WHERE id = $1'), ['delivered_count_matches_leads']],
  [
    'a job is marked expired with its leads kept',
    q('UPDATE jobs SET leads_expired_at = now() WHERE id = $1'),
    ['delivered_count_matches_leads'],
  ],
  ['a delivered lead is forgotten by the account', q('DELETE FROM account_deliveries WHERE job_id = $1'), ['delivered_leads_remembered']],
  [
    'the job records another charge than the ledger',
    q('UPDATE jobs SET credits_charged = credits_charged + 2 WHERE id = $1'),
    ['terminal_job_settled'],
  ],
  // Written behind the account's counters' back, so they disagree with the ledger too.
  [
    'a reservation is open with no job',
    q("INSERT INTO credit_ledger (account_id, job_id, kind, amount) SELECT $2, NULL, 'reserve', 5 WHERE $1::text IS NOT NULL"),
    ['ledger_adds_up', 'account_counters_match_ledger'],
  ],
  ['a terminal job is reopened', q("UPDATE jobs SET status = 'running' WHERE id = $1"), ['open_job_unsettled', 'ledger_adds_up']],
  [
    'a complete job is short',
    q('UPDATE jobs SET delivered_count = 4 WHERE id = $1'),
    ['delivered_count_matches_leads', 'status_matches_delivered_count'],
  ],
  [
    'the reservation disagrees with the job',
    q('UPDATE jobs SET credits_reserved = credits_reserved + 1 WHERE id = $1'),
    ['reservation_matches_job', 'terminal_job_settled'],
  ],
])('when %s, then the checker names it', async (_what, tamper, expected) => {
  const { accountId, jobId } = await finishedJob();
  const [text, params] = tamper(jobId, accountId);
  await sql.query(text, [...params]);
  const violations = await checkInvariants(world.config.database.url, { accountIds: [accountId] });
  expect(violations.map((v) => v.invariant).sort()).toEqual([...expected].sort());
  // Scoped: another account's clean data is not reported.
  expect(await checkInvariants(world.config.database.url, { accountIds: [(await finishedJob()).accountId] })).toEqual([]);
});

it('when a batch keeps a claim after it ended, or its children’s leads are not claimed while it runs, then the checker names it', async () => {
  const account = await buildAccount(world.db, { credits: 1_000 });
  const area = { source: 'linkedin', category: 'cto', state: 'US', city: 'Austin', keyword: 'sandbox:only=8', maxResults: 5 };
  const created = await world.http
    .post('/api/v1/leads/batches')
    .set(account.auth)
    .set('Idempotency-Key', idempotencyKey())
    .send({ requests: [area, area] });
  expect(created.status).toBe(202);
  const batchId = created.body.batchId as string;
  for (let i = 0; ; i += 1) {
    const res = await world.http.get(`/api/v1/leads/batches/${batchId}`).set(account.auth);
    if (res.body.terminal) break;
    if (i > 400) throw new Error('batch not terminal');
    await new Promise((r) => setTimeout(r, 50));
  }
  const check = async () => (await checkInvariants(world.config.database.url, { accountIds: [account.accountId] })).map((v) => v.invariant);
  expect(await check()).toEqual([]);

  const claim = `INSERT INTO batch_deliveries (batch_id, source, dedup_key, job_id)
                 SELECT j.batch_id, j.source, encode(sha256(convert_to(l.dedup_key, 'UTF8')), 'hex'), j.id
                 FROM leads l JOIN jobs j ON j.id = l.job_id WHERE j.batch_id = $1 LIMIT 1`;
  await sql.query(claim, [batchId]);
  expect(await check()).toEqual(['lead_once_per_batch']);
  await sql.query('DELETE FROM batch_deliveries WHERE batch_id = $1', [batchId]);
  await sql.query(`UPDATE batches SET status = 'running' WHERE id = $1`, [batchId]);
  expect(await check()).toEqual(['lead_once_per_batch']);
  await sql.query(claim.replace('LIMIT 1', ''), [batchId]);
  expect(await check()).toEqual([]);
});

it('when an invariant needs a column the schema does not have yet, then it is skipped, and run once the column exists', async () => {
  const { accountId } = await finishedJob();
  const always = (requires: string[]) => ({
    name: requires.join(','),
    rule: 'always broken',
    requires,
    sql: 'SELECT 1 AS broken WHERE $1::text[] IS NOT NULL',
  });
  const violations = await checkInvariants(world.config.database.url, {
    accountIds: [accountId],
    invariants: [always(['accounts.no_such_column']), always(['accounts.name'])],
  });
  expect(violations.map((v) => v.invariant)).toEqual(['accounts.name']);
});
