import { buildAccount, type TestAccount } from '../../../test/factories';
import { generate, pollUntilTerminal, startWorld, type TestWorld } from '../../../test/harness';

interface Item {
  jobId: string;
  position: number;
}
const key = (item: Item) => `${item.jobId}/${item.position}`;

/** A job of the account, run to its end by the in-process worker. */
async function finishedJob(world: TestWorld, account: TestAccount, maxResults: number): Promise<string> {
  const res = await generate(world, account, { category: 'bakery', state: 'FR', maxResults }, { Prefer: 'respond-async' });
  expect(res.status).toBe(202);
  return (await pollUntilTerminal(world, account, res.body.jobId as string)).jobId as string;
}

// A consumer pulling every lead into a CRM while the account's jobs keep running and finishing.
describe('GET /api/v1/leads paged while jobs are created and deliver', () => {
  let world: TestWorld;
  let account: TestAccount;
  beforeAll(async () => {
    world = await startWorld();
    account = await buildAccount(world.db, { credits: 100_000 });
    for (const size of [6, 9, 4]) await finishedJob(world, account, size);
  });
  afterAll(() => world.close());

  it('when paged by 5 while new jobs deliver, then every lead that existed comes once, in order, and new ones only after them', async () => {
    const before = (await world.http.get('/api/v1/leads?limit=1000').set(account.auth)).body.items as Item[];
    expect(before).toHaveLength(19);
    const seen: Item[] = [];
    const created: string[] = [];
    let cursor: string | null = null;
    do {
      // Until the pager is past the leads that existed, each page is read while two more jobs are
      // created and run to their end; then it pages on to the end.
      const creating = cursor && seen.length < before.length;
      const [res] = await Promise.all([
        world.http
          .get('/api/v1/leads')
          .query({ limit: 5, ...(cursor ? { cursor } : {}) })
          .set(account.auth),
        creating ? Promise.all([finishedJob(world, account, 3), finishedJob(world, account, 2)]).then((ids) => created.push(...ids)) : null,
      ]);
      expect(res.status).toBe(200);
      seen.push(...(res.body.items as Item[]));
      cursor = res.body.nextCursor as string | null;
    } while (cursor);

    expect(created).toHaveLength(6);
    expect(new Set(seen.map(key)).size).toBe(seen.length);
    expect(seen.slice(0, before.length)).toEqual(before);
    // What came after the leads that existed belongs to the jobs created meanwhile, each job's in delivery order.
    const later = seen.slice(before.length);
    expect(later).toHaveLength(15); // three pairs of jobs of 3 and 2 leads, all finished before the pager reached them
    expect(later.every((item) => created.includes(item.jobId))).toBe(true);
    for (let i = 1; i < later.length; i += 1) {
      if (later[i]!.jobId === later[i - 1]!.jobId) expect(later[i]!.position).toBe(later[i - 1]!.position + 1);
    }
  });
});
