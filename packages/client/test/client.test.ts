import { LeadgenClient, LeadgenError } from '../src/index.js';
import { startWorld, type TestWorld } from '../../../test/harness.js';
import { buildAccount, type TestAccount } from '../../../test/factories.js';

/** The real API, in-process; the client's fetch is the runtime's, watched to see what the client did. */
describe('@leadgen/client against the real API', () => {
  let world: TestWorld;
  let account: TestAccount;
  let baseUrl: string;
  const seen: Array<{ method: string; url: string; status: number; key: string | null }> = [];
  const watched: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const headers = new Headers(init?.headers);
    seen.push({ method: init?.method ?? 'GET', url: String(input), status: response.status, key: headers.get('Idempotency-Key') });
    return response;
  };
  const client = (apiKey = account.apiKey) => new LeadgenClient({ baseUrl, apiKey, fetch: watched, retryBaseMs: 50 });

  beforeAll(async () => {
    world = await startWorld();
    account = await buildAccount(world.db, { credits: 100_000 });
    baseUrl = `http://127.0.0.1:${(world.api.server.address() as { port: number }).port}`;
  });
  beforeEach(() => {
    seen.length = 0;
  });
  afterAll(() => world.close());

  it('when a quick job is generated, then it resolves with the terminal job from the first answer', async () => {
    const job = await client().generate({ category: 'dentist', state: 'US', maxResults: 5 });
    expect(job).toMatchObject({ status: 'COMPLETE', progress: { deliveredCount: 5 } });
    expect(job.leads).toHaveLength(5);
    expect(seen.map((s) => s.status)).toEqual([200]);
  });

  it('when the job outlasts the server’s wait, then it follows the 202 by polling and resolves with the terminal job, one job made', async () => {
    const job = await client().generate(
      { category: 'gym', state: 'DE', maxResults: 30, keyword: 'sandbox:delay=60' },
      { serverWaitSeconds: 0 },
    );
    expect(job.status).toBe('COMPLETE');
    expect(job.leads).toHaveLength(30);
    expect(seen[0]!.status).toBe(202);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.slice(1).every((s) => s.method === 'GET' && s.url.endsWith(`/api/v1/leads/jobs/${job.jobId}`))).toBe(true);
    expect(
      await world.db.job.count({ where: { accountId: account.accountId, request: { path: ['keyword'], equals: 'sandbox:delay=60' } } }),
    ).toBe(1);
  });

  it('when a running job is cancelled, then the CANCELLED body; a second cancel answers the same', async () => {
    const started = await client().generate(
      { category: 'gym', state: 'US', maxResults: 100, keyword: 'sandbox:delay=200' },
      { wait: false },
    );
    expect(started.status).toMatch(/queued|running/);
    const cancelled = await client().cancelJob(started.jobId);
    expect(cancelled).toMatchObject({ status: 'CANCELLED', terminal: { stopReason: 'cancelled_by_owner' } });
    expect(await client().cancelJob(started.jobId)).toEqual(cancelled);
    expect((await client().getJob(started.jobId)).status).toBe('CANCELLED');
  });

  it('when the account is over its rate limit, then the client waits Retry-After and retries with the same key', async () => {
    const redis = world.api.deps.redis;
    const windowStart = Math.floor(Date.now() / 60_000);
    // The window's counter, full, for this second and the next: the first attempt gets 429 with Retry-After 1.
    for (const window of [windowStart, windowStart + 1]) {
      await redis.set(world.api.deps.producer.keys.account(account.accountId).rateLimitWindow('generate', window), '100000', 'EX', 1);
    }
    const job = await client().generate({ category: 'bakery', state: 'FR', maxResults: 2 });
    expect(job.status).toBe('COMPLETE');
    expect(seen.map((s) => s.status)).toEqual([429, 200]);
    expect(seen[0]!.key).toBe(seen[1]!.key);
  });

  it('when the account cannot pay, then a LeadgenError carrying 402 insufficient_credits and the Problem Details', async () => {
    const poor = await buildAccount(world.db, { credits: 0 });
    const error = await client(poor.apiKey)
      .generate({ category: 'dentist', state: 'US' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeadgenError);
    expect(error).toMatchObject({ status: 402, code: 'insufficient_credits', problem: { required: 50, available: 0 } });
  });

  it('when the account’s audit trail is listed, then the pages are yielded newest first until the last', async () => {
    const owner = await buildAccount(world.db, { credits: 1000 });
    for (let n = 0; n < 3; n++)
      expect((await client(owner.apiKey).generate({ category: 'dentist', state: 'US', maxResults: 1 })).status).toBe('COMPLETE');
    const exported: number[] = [];
    for await (const item of client(owner.apiKey).exportLeads()) exported.push(item.position);
    for await (const item of client(owner.apiKey).exportLeads({ source: 'google_maps' })) exported.push(item.position);
    const pages = [];
    for await (const page of client(owner.apiKey).listAuditEvents({ action: 'leads.exported', limit: 1 })) pages.push(page);
    expect(pages).toHaveLength(2);
    expect(pages.map((p) => p.items[0]!.summary)).toMatchObject([
      { selection: { source: 'google_maps' }, leads: 3 },
      { selection: { source: null }, leads: 3 },
    ]);
  });

  it('when a job does not exist, then job_not_found; a bad request, validation_failed with its pointers', async () => {
    await expect(client().getJob('job_000000000000000000000000')).rejects.toMatchObject({ code: 'job_not_found', status: 404 });
    await expect(client().generate({ category: '', state: 'XX' })).rejects.toMatchObject({
      code: 'validation_failed',
      problem: { errors: expect.any(Array) },
    });
  });

  it('when jobs are listed, then an async iterator over pages, newest first, ending on the last page', async () => {
    const pages = [];
    for await (const page of client().listJobs({ limit: 2, source: 'google_maps' })) pages.push(page);
    const ids = pages.flatMap((p) => p.items.map((j) => j.jobId));
    expect(pages.length).toBeGreaterThan(1);
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages.at(-1)!.nextCursor).toBeNull();
  });

  it('when leads are exported, then they arrive one by one from the JSON Lines stream; CSV as bytes', async () => {
    const job = await client().generate({ category: 'florist', state: 'NL', maxResults: 12 });
    const items = [];
    for await (const item of client().exportLeads({ jobId: job.jobId })) items.push(item);
    expect(items.map((i) => i.lead)).toEqual(job.leads);
    const csv = await new Response(await client().exportLeadsCsv({ jobId: job.jobId })).text();
    expect(csv.split('\r\n').filter(Boolean)).toHaveLength(13);
  });

  it('when the caller aborts, then the call rejects with the abort and stops polling', async () => {
    const controller = new AbortController();
    const pending = client().generate(
      { category: 'gym', state: 'US', maxResults: 100, keyword: 'sandbox:delay=200' },
      { serverWaitSeconds: 0, signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error('stop')), 300);
    await expect(pending).rejects.toThrow('stop');
  });
});
