import { generate, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';

async function createJobs(world: TestWorld, account: TestAccount, count: number, body: Record<string, unknown> = {}): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const res = await generate(world, account, { category: 'florist', state: 'NL', maxResults: 1, ...body }, { Prefer: 'respond-async' });
    expect(res.status).toBe(202);
    ids.push(res.body.jobId as string);
  }
  return ids;
}

/** Follows the Link header from page to page; `alongside` runs concurrently with every page after the first. */
async function pageAll(world: TestWorld, account: TestAccount, firstUrl: string, alongside: () => Promise<unknown> = async () => {}) {
  const seen: Array<{ jobId: string; createdAt: string }> = [];
  let url: string | null = firstUrl;
  let pages = 0;
  while (url) {
    const [res] = await Promise.all([world.http.get(url).set(account.auth), pages > 0 ? alongside() : null]);
    expect(res.status).toBe(200);
    seen.push(...(res.body.items as Array<{ jobId: string; createdAt: string }>));
    const link = res.headers.link as string | undefined;
    expect(Boolean(link)).toBe(res.body.nextCursor !== null);
    url = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1]! : null;
    pages += 1;
  }
  return { seen, pages };
}

describe('GET /api/v1/leads/jobs', () => {
  let world: TestWorld;
  let account: TestAccount;
  let stranger: TestAccount;
  let mine: string[];
  beforeAll(async () => {
    world = await startWorld({ worker: false });
    account = await buildAccount(world.db, { credits: 100_000 });
    stranger = await buildAccount(world.db, { credits: 100_000 });
    await createJobs(world, stranger, 3);
    mine = await createJobs(world, account, 12);
  });
  afterAll(() => world.close());

  it('when called without parameters, then the newest 20 of the caller’s jobs, newest first, as job bodies without leads', async () => {
    const res = await world.http.get('/api/v1/leads/jobs').set(account.auth);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.nextCursor).toBeNull();
    expect(res.headers.link).toBeUndefined();
    const items = res.body.items as Array<Record<string, unknown>>;
    expect(items.map((j) => j.jobId)).toEqual([...mine].reverse());
    expect(items[0]).toMatchObject({ status: 'queued', source: 'google_maps', progress: { requestedCount: 1, deliveredCount: 0 } });
    for (const item of items) expect(item).not.toHaveProperty('leads');
  });

  it('when paged by 5 while the account keeps creating jobs, then every job that existed appears exactly once, in order, and no new one slips in', async () => {
    const created: string[] = [];
    const { seen, pages } = await pageAll(world, account, '/api/v1/leads/jobs?limit=5', async () => {
      created.push(...(await Promise.all([createJobs(world, account, 1), createJobs(world, account, 1)])).flat());
    });
    expect(pages).toBe(3);
    expect(seen.map((j) => j.jobId)).toEqual([...mine].reverse());
    expect(created).toHaveLength(4);
    for (let i = 1; i < seen.length; i += 1) expect(seen[i - 1]!.createdAt >= seen[i]!.createdAt).toBe(true);
    mine = [...mine, ...created];
  });

  it('when jobs share a millisecond, then the id breaks the tie and paging by 1 loses none', async () => {
    const jobs = await world.db.job.findMany({ where: { accountId: account.accountId }, select: { id: true } });
    const at = new Date('2026-01-01T00:00:00.000Z');
    await world.db.job.updateMany({ where: { id: { in: jobs.slice(0, 4).map((j) => j.id) } }, data: { createdAt: at } });
    const { seen } = await pageAll(world, account, '/api/v1/leads/jobs?limit=1&createdBefore=2026-01-01T00:00:00.001Z');
    expect(seen.map((j) => j.jobId)).toEqual(
      jobs
        .slice(0, 4)
        .map((j) => j.id)
        .sort()
        .reverse(),
    );
  });

  it('when another account lists, then none of this account’s jobs appear', async () => {
    const res = await world.http.get('/api/v1/leads/jobs?limit=100').set(stranger.auth);
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(3);
    const ids = new Set((res.body.items as Array<{ jobId: string }>).map((j) => j.jobId));
    for (const id of mine) expect(ids.has(id)).toBe(false);
  });

  it('when filtered by status, source and creation time, then only matching jobs', async () => {
    const [cancelled] = await createJobs(world, account, 1);
    await world.http.delete(`/api/v1/leads/jobs/${cancelled}`).set(account.auth).expect(200);
    const [linkedin] = await createJobs(world, account, 1, { source: 'linkedin', state: 'US' });
    const byStatus = await world.http.get('/api/v1/leads/jobs?status=CANCELLED').set(account.auth);
    expect((byStatus.body.items as Array<{ jobId: string }>).map((j) => j.jobId)).toEqual([cancelled]);
    expect(byStatus.body.items[0]).toMatchObject({ status: 'CANCELLED', terminal: { stopReason: 'cancelled_by_owner' } });
    expect(byStatus.body.items[0]).not.toHaveProperty('leads');
    const both = await world.http.get('/api/v1/leads/jobs?status=CANCELLED,running&status=EMPTY&limit=100').set(account.auth);
    expect(both.body.items).toHaveLength(1);
    const bySource = await world.http.get('/api/v1/leads/jobs?source=linkedin').set(account.auth);
    expect((bySource.body.items as Array<{ jobId: string }>).map((j) => j.jobId)).toEqual([linkedin]);
    const last = await world.db.job.findUniqueOrThrow({ where: { id: linkedin! } });
    const after = await world.http
      .get(`/api/v1/leads/jobs?createdAfter=${encodeURIComponent(last.createdAt.toISOString())}`)
      .set(account.auth);
    expect((after.body.items as Array<{ jobId: string }>).map((j) => j.jobId)).toEqual([linkedin]);
    const before = await world.http.get('/api/v1/leads/jobs?createdBefore=2000-01-01T00:00:00%2B02:00').set(account.auth);
    expect(before.body.items).toEqual([]);
  });

  it('when the parameters are bad, then 400 validation_failed naming each one, and unknown parameters are refused', async () => {
    const res = await world.http
      .get('/api/v1/leads/jobs?limit=0&status=DONE&source=bing&createdAfter=yesterday&createdBefore=2026-11-22&cursor=abc&sort=asc')
      .set(account.auth);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('validation_failed');
    const pointers = (res.body.errors as Array<{ pointer: string }>).map((e) => e.pointer).sort();
    expect(pointers).toEqual(['#/createdAfter', '#/createdBefore', '#/cursor', '#/limit', '#/sort', '#/source', '#/status'].sort());
    for (const limit of ['101', '2.5', 'ten', '']) {
      const bad = await world.http.get(`/api/v1/leads/jobs?limit=${limit}`).set(account.auth);
      expect(bad.status).toBe(400);
    }
    const twice = await world.http.get('/api/v1/leads/jobs?limit=1&limit=2').set(account.auth);
    expect(twice.status).toBe(400);
  });

  it('when unauthenticated, then 401; other methods 405', async () => {
    expect((await world.http.get('/api/v1/leads/jobs')).status).toBe(401);
    const post = await world.http.post('/api/v1/leads/jobs').set(account.auth).send({});
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET');
  });

  it('when answered, then the read rate-limit headers come with it', async () => {
    const res = await world.http.get('/api/v1/leads/jobs?limit=1').set(account.auth);
    expect(res.headers['ratelimit-policy']).toBeDefined();
    expect(res.headers.ratelimit).toBeDefined();
  });
});
