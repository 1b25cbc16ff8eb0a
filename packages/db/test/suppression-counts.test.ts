import type { SuppressionEntry } from '@leadgen/domain';
import {
  addSuppressions,
  addSuppressionsWithin,
  countSuppressions,
  createDatabase,
  deleteAccount,
  removeSuppressions,
  SUPPRESSION_CHUNK,
  type Database,
} from '../src';
import { buildAccount } from '../../../test/factories';

// GET /suppressions and an upload's cap read kept counts (prisma/functions/suppression_counts_kept.sql, decision 043)
// instead of counting the list: they must stay what counting would say, through adds, removals, races and deletion.
let db: Database;
let other: Database;
beforeAll(() => {
  db = createDatabase(process.env.DATABASE_URL!, { poolSize: 4 });
  other = createDatabase(process.env.DATABASE_URL!, { poolSize: 4 });
});
afterAll(() => Promise.all([db.$disconnect(), other.$disconnect()]));

const counted = async (accountId: string) => {
  const { rows } = await db.sql.query<{ kind: string; n: number }>(
    'SELECT kind::text AS kind, count(*)::int AS n FROM suppressions WHERE account_id = $1 GROUP BY kind',
    [accountId],
  );
  return { domain: 0, email: 0, phone: 0, ...Object.fromEntries(rows.map((r) => [r.kind, r.n])) };
};
const entries = (kind: SuppressionEntry['kind'], from: number, n: number): SuppressionEntry[] =>
  Array.from({ length: n }, (_, i) =>
    kind === 'phone' ? { kind, value: `+1512555${String(from + i).padStart(4, '0')}` } : { kind, value: `x${from + i}.example` },
  ).map((e) => (kind === 'email' ? { kind, value: `a@${e.value}` } : e));

describe('kept suppression counts', () => {
  it('when entries are added, added again, removed and raced, then the kept counts are what counting says', async () => {
    const { accountId } = await buildAccount(db, { credits: 0 });
    expect(await countSuppressions(db, accountId)).toEqual({ domain: 0, email: 0, phone: 0 });
    await addSuppressions(db, accountId, [...entries('domain', 0, 30), ...entries('email', 0, 5)]);
    await addSuppressions(db, accountId, entries('domain', 20, 20)); // 10 of them held already
    expect(await countSuppressions(db, accountId)).toEqual({ domain: 40, email: 5, phone: 0 });
    await removeSuppressions(db, accountId, [...entries('domain', 35, 10), ...entries('email', 4, 3)]);
    expect(await countSuppressions(db, accountId)).toEqual({ domain: 35, email: 4, phone: 0 });
    // Two processes at once: an upload under the cap, removals, and plain adds of overlapping entries.
    await Promise.all([
      addSuppressionsWithin(db, accountId, entries('phone', 0, 200), 1_000),
      removeSuppressions(other, accountId, entries('domain', 0, 20)),
      addSuppressions(other, accountId, entries('phone', 100, 200)),
      addSuppressions(db, accountId, entries('email', 0, 50)),
    ]);
    expect(await countSuppressions(db, accountId)).toEqual(await counted(accountId));
    expect(await countSuppressions(db, accountId)).toEqual({ domain: 15, email: 50, phone: 300 });
  });

  it('when an upload would pass the cap, then the kept counts refuse it as counting would', async () => {
    const { accountId } = await buildAccount(db, { credits: 0 });
    await addSuppressions(db, accountId, entries('domain', 0, 8));
    // x5..x8: three held, one fresh; 8 + 1 passes a cap of 8
    expect(await addSuppressionsWithin(db, accountId, entries('domain', 5, 4), 8)).toEqual({ overLimit: { held: 8, fresh: 1 } });
    expect(await addSuppressionsWithin(db, accountId, entries('domain', 5, 5), 10)).toEqual({ added: 2 });
    expect(await countSuppressions(db, accountId)).toEqual({ domain: 10, email: 0, phone: 0 });
  });

  it('when the account is deleted, then its counts go with it', async () => {
    const { accountId } = await buildAccount(db, { credits: 0 });
    await addSuppressions(db, accountId, entries('email', 0, 3));
    expect((await deleteAccount(db, accountId)).outcome).toBe('deleted');
    const { rows } = await db.sql.query('SELECT 1 FROM suppression_counts WHERE account_id = $1', [accountId]);
    expect(rows).toEqual([]);
  });

  it('when a change spans chunks, then it is all or nothing: a cap crossed in a later chunk, or a failure between chunks, stores none of it', async () => {
    const { accountId } = await buildAccount(db, { credits: 0 });
    await addSuppressions(db, accountId, entries('domain', 0, 100));
    const between = jest.fn(() => Promise.resolve());
    // 2,500 new entries: three statements; the cap (2,200) is crossed in the third.
    const three = entries('email', 0, 2 * SUPPRESSION_CHUNK + SUPPRESSION_CHUNK / 2);
    expect(await addSuppressionsWithin(db, accountId, three, 2_200, between)).toEqual({ overLimit: { held: 100, fresh: 2_500 } });
    expect(between).toHaveBeenCalledTimes(3);
    expect(await countSuppressions(db, accountId)).toEqual({ domain: 100, email: 0, phone: 0 });
    expect(await counted(accountId)).toEqual({ domain: 100, email: 0, phone: 0 });

    let calls = 0;
    const failing = () => (++calls === 3 ? Promise.reject(new Error('client gone')) : Promise.resolve());
    await expect(addSuppressionsWithin(db, accountId, three, 10_000, failing)).rejects.toThrow('client gone');
    await expect(removeSuppressions(db, accountId, entries('domain', 0, 100).concat(three), ((calls = 0), failing))).rejects.toThrow(
      'client gone',
    );
    expect(await counted(accountId)).toEqual({ domain: 100, email: 0, phone: 0 });

    expect(await addSuppressionsWithin(db, accountId, [...three, ...entries('domain', 50, 100)], 10_000, between)).toEqual({
      added: 2_550,
    });
    expect(await countSuppressions(db, accountId)).toEqual(await counted(accountId));
    expect(await countSuppressions(db, accountId)).toEqual({ domain: 150, email: 2_500, phone: 0 });
  });
});
