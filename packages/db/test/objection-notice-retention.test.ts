import { randomBytes } from 'node:crypto';
import { createAccount, createDatabase, insertObjection, listObjectionNotices, purgeOldObjectionNotices, type Database } from '../src';

// Decision 042: an account's objection notices leave its feed after OBJECTION_NOTICE_RETENTION_DAYS; the
// worker's objection sweep deletes them (purgeOldObjectionNotices), younger ones stay.

let db: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 2 });
});
afterAll(() => db.$disconnect());

it('when notices are older than the retention, then they are deleted and the younger ones stay', async () => {
  const account = await createAccount(db, 'notice-retention');
  const tag = randomBytes(4).toString('hex');
  const ids = { old: `obj_retold${tag}`, young: `obj_retnew${tag}` };
  for (const id of Object.values(ids))
    await insertObjection(db, { id, kind: 'domain', value: `${id}.example`, tokenHash: null, proofToken: null, expiresAt: new Date() });
  const notice = `INSERT INTO objection_notices (objection_id, account_id, kind, value, identifiers, job_ids, created_at)
    VALUES ($1, $2, 'domain', $3, '{"emails":[],"phones":[],"domains":[]}', '[]', now() - make_interval(days => $4))`;
  await db.sql.query(notice, [ids.old, account.id, `${ids.old}.example`, 91]);
  await db.sql.query(notice, [ids.young, account.id, `${ids.young}.example`, 89]);

  expect(await purgeOldObjectionNotices(db, 90)).toBeGreaterThanOrEqual(1);
  const left = await listObjectionNotices(db, account.id, { limit: 10 });
  expect(left.map((n) => n.objectionId)).toEqual([ids.young]);
  await db.sql.query('DELETE FROM objections WHERE id = ANY($1)', [Object.values(ids)]);
});
