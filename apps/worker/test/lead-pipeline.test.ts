import { findJob } from '@leadgen/db';
import type { Lead } from '@leadgen/domain';
import { ProviderError, type LeadProvider, type ProviderLead } from '@leadgen/providers';
import { jobEventPublisher, producerConnection, redisKeys, closeRedis, type Job, type QueuePayloads } from '@leadgen/queue';
import { generate, idempotencyKey, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';
import { createLeadJobHandler } from '../src/process-lead-job';
// The same module '@leadgen/providers' loads: the worker's countUpstreamCalls scope, as an adapter's client counts in it.
import { upstreamCallCounts } from '../../../packages/providers/src/upstream/upstream-client';

/**
 * The pipeline of decision 037 (apps/worker/src/lead-pipeline.ts) through the real handler, PostgreSQL and
 * commit_page, with a scripted provider: pages that take a set time, and leads whose finish (website,
 * verification) takes a set time, drops the lead, or hangs until the job stops. A page may say how many of its
 * leads the adapter's filters left out (decision 038); each page and each finish counts as one upstream call
 * (`scripted`, `verifier`) in the job's scope, as the real clients do.
 */

/** One call to `name` in the countUpstreamCalls scope running now (what UpstreamClient does per request). */
function countCall(name: string): void {
  const counts = upstreamCallCounts();
  counts?.set(name, (counts.get(name) ?? 0) + 1);
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

function lead(key: string): ProviderLead {
  const record: Lead = {
    source: 'google_maps',
    businessName: `Business ${key}`,
    email: null,
    phone: null,
    address: null,
    website: null,
    reviewScore: null,
    categories: [],
    socialProfiles: { facebook: null, instagram: null, linkedin: null },
  } as unknown as Lead;
  return { dedupKey: key, lead: record };
}

type Finish = number | 'drop' | 'hang' | 'fail';

interface Script {
  pages: Array<{ delayMs: number; keys: string[]; filtered?: number }>;
  finish: (key: string) => Finish;
}

/** Records when each page was asked for and which leads were finished, and when each finish ended. */
function scripted(script: Script) {
  const asked: number[] = [];
  const finished: string[] = [];
  const started = Date.now();
  const provider: LeadProvider<'google_maps'> = {
    source: 'google_maps',
    name: 'scripted',
    async *search(_request, context) {
      const from = context.cursor === null ? 0 : Number(context.cursor);
      for (let p = from; p < script.pages.length; p++) {
        asked.push(Date.now() - started);
        countCall('scripted');
        await sleep(script.pages[p]!.delayMs, context.signal);
        const filtered = script.pages[p]!.filtered;
        yield {
          leads: script.pages[p]!.keys.map(lead),
          cursor: p + 1 < script.pages.length ? String(p + 1) : null,
          ...(filtered ? { filtered } : {}),
          finish: async (row, signal) => {
            finished.push(row.dedupKey);
            countCall('verifier');
            const how = script.finish(row.dedupKey);
            if (how === 'drop') return false;
            if (how === 'fail') throw new ProviderError('provider_error', 'the verifier answered 500 on every attempt', 500);
            if (how === 'hang') await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
            else await sleep(how, signal);
            return true;
          },
        };
      }
    },
  };
  return { provider, asked, finished };
}

const keys = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('a job pipelined as its upstreams allow', () => {
  let world: TestWorld;
  let connection: ReturnType<typeof producerConnection>;
  let account: TestAccount;
  beforeAll(async () => {
    world = await startWorld({ worker: false });
    connection = producerConnection(world.config.redis);
    account = await buildAccount(world.db, { credits: 100_000 });
  });
  afterAll(async () => {
    await closeRedis(connection);
    await world.close();
  });

  const entry = (jobId: string) =>
    ({
      data: { jobId, accountId: account.accountId, source: 'google_maps' },
      attemptsMade: 0,
      opts: { attempts: 5 },
      log: async () => 0,
      updateProgress: async () => undefined,
    }) as unknown as Job<QueuePayloads['google_maps']>;

  async function run(provider: LeadProvider<'google_maps'>, maxResults: number, signal = new AbortController().signal) {
    const res = await generate(world, account, { category: 'dentist', state: 'US', maxResults }, { Prefer: 'respond-async' });
    const jobId = res.body.jobId as string;
    const handler = createLeadJobHandler(provider, {
      config: world.config,
      db: world.db,
      lifecycle: { ...world.api.deps.lifecycle, events: jobEventPublisher(connection, redisKeys(world.config.redis)) },
    });
    const done = handler(entry(jobId), 'token', signal);
    return { jobId, done, handler };
  }

  const leadsOf = async (jobId: string) =>
    (await world.db.lead.findMany({ where: { jobId }, orderBy: { position: 'asc' } })).map((l) => l.dedupKey);

  it('when the job needs more than a page, then the next page is asked for while the first is finished, and no page or site beyond what it needs', async () => {
    const { provider, asked, finished } = scripted({
      pages: [0, 1, 2, 3].map((p) => ({ delayMs: 200, keys: keys(`p${p}-`, 10) })),
      finish: () => 600,
    });
    const { jobId, done } = await run(provider, 25);
    await done;
    // Page 2 is asked for as page 1 answers (200 ms), not after its leads' 600 ms; page 3 as page 2 answers.
    expect(asked).toHaveLength(3);
    expect(asked[1]! - asked[0]!).toBeLessThan(450);
    expect(asked[2]! - asked[0]!).toBeLessThan(700);
    // Only the 25 leads the job needs are finished (no drops: the keep rate stays 1).
    expect(finished).toHaveLength(25);
    expect(await findJob(world.db, jobId)).toMatchObject({ status: 'COMPLETE', deliveredCount: 25, creditsCharged: 50 });
    expect(new Set(await leadsOf(jobId))).toEqual(new Set([...keys('p0-', 10), ...keys('p1-', 10), ...keys('p2-', 5)]));
  });

  it('when a job commits within its first instant, then its start, leads and settlement are one write; one that waits on its upstreams shows running within a second, started when it was taken', async () => {
    // One page, every lead ready at once: the worker reads the row (open_job) and writes once (commit_slice).
    const quick = scripted({ pages: [{ delayMs: 0, keys: keys('q', 5) }], finish: () => 0 });
    const statements: string[] = [];
    const query = world.db.sql.query.bind(world.db.sql);
    const counting = (text: unknown, ...rest: unknown[]) => {
      if (typeof text === 'string') statements.push(/(\w+)\(\$1/.exec(text)?.[1] ?? text.slice(0, 20));
      return (query as (...args: unknown[]) => unknown)(text, ...rest);
    };
    (world.db.sql as { query: unknown }).query = counting;
    let first;
    try {
      first = await run(quick.provider, 5);
      await first.done;
    } finally {
      (world.db.sql as { query: unknown }).query = query;
    }
    expect(statements.filter((name) => name !== 'create_job' && name !== 'read_job')).toEqual(['open_job', 'commit_slice']);
    expect(await findJob(world.db, first.jobId)).toMatchObject({
      status: 'COMPLETE',
      deliveredCount: 5,
      creditsCharged: 10,
      provider: 'scripted',
    });

    // A first page that takes 1.6 s: the start is written on its own after START_WRITE_MS (1 s), with the time taken.
    const slow = scripted({ pages: [{ delayMs: 1_600, keys: keys('w', 3) }], finish: () => 0 });
    const { jobId, done } = await run(slow.provider, 3);
    const taken = Date.now();
    expect((await findJob(world.db, jobId))?.status).toBe('queued');
    let seen: Awaited<ReturnType<typeof findJob>> = null;
    while (Date.now() - taken < 1_500) {
      seen = await findJob(world.db, jobId);
      if (seen?.status === 'running') break;
      await sleep(50);
    }
    expect(seen).toMatchObject({ status: 'running', provider: 'scripted', deliveredCount: 0 });
    expect(Math.abs(seen!.startedAt!.getTime() - taken)).toBeLessThan(500);
    await done;
    expect(await findJob(world.db, jobId)).toMatchObject({ status: 'COMPLETE', deliveredCount: 3 });
  });

  it('when one site is slow, then the leads ready before it are readable at once and it delays only its own lead', async () => {
    const { provider } = scripted({
      pages: [{ delayMs: 0, keys: keys('s', 10) }],
      // slow enough that a loaded machine (CI at load 10 or more) still commits the nine well before it
      finish: (key) => (key === 's2' ? 5_000 : 50),
    });
    const started = Date.now();
    const { jobId, done } = await run(provider, 10);
    // Polled as a client would: nine leads committed long before the slow site answers.
    let early: number | undefined;
    while (Date.now() - started < 4_500) {
      early = (await findJob(world.db, jobId))?.deliveredCount;
      if (early === 9) break;
      await sleep(25);
    }
    expect(early).toBe(9);
    await done;
    const order = await leadsOf(jobId);
    // Delivery order: the nine in upstream order, then the slow one (position is the order of delivery).
    expect(order).toEqual(['s0', 's1', 's3', 's4', 's5', 's6', 's7', 's8', 's9', 's2']);
    expect(await findJob(world.db, jobId)).toMatchObject({ status: 'COMPLETE', deliveredCount: 10 });
  });

  it('when leads are dropped and an early one is slow, then the job delivers the first survivors in upstream order, whatever their timing', async () => {
    const { provider, finished } = scripted({
      pages: [
        { delayMs: 0, keys: keys('d', 6) },
        { delayMs: 100, keys: keys('e', 6) },
      ],
      finish: (key) => (key === 'd1' || key === 'd3' ? 'drop' : key === 'd0' ? 600 : 20),
    });
    const { jobId, done } = await run(provider, 5);
    await done;
    // d0 is slow, yet the later e-leads that finished first never take its place.
    expect(new Set(await leadsOf(jobId))).toEqual(new Set(['d0', 'd2', 'd4', 'd5', 'e0']));
    expect(finished).not.toContain('e5');
    expect(await findJob(world.db, jobId)).toMatchObject({ status: 'COMPLETE', deliveredCount: 5, creditsCharged: 10 });
  });

  it('when the worker stops while an early lead hangs, then the cursor stays before its page, and the next worker delivers and bills each lead once', async () => {
    const pages = [
      { delayMs: 0, keys: keys('a', 5) },
      { delayMs: 50, keys: keys('b', 5) },
      { delayMs: 50, keys: keys('c', 5) },
    ];
    const first = scripted({ pages, finish: (key) => (key === 'a0' ? 'hang' : 10) });
    const stop = new AbortController();
    const { jobId, done } = await run(first.provider, 12, stop.signal);
    // Wait until everything but a0 is committed, then stop the worker as a crash would leave it (not settled).
    const started = Date.now();
    while ((await findJob(world.db, jobId))!.deliveredCount < 11 && Date.now() - started < 5_000) await sleep(25);
    stop.abort('cancelled');
    await done;
    const stopped = (await findJob(world.db, jobId))!;
    expect(stopped).toMatchObject({ status: 'running', deliveredCount: 11, cursor: null });

    // The next worker reads every page again: the committed leads are skipped, a0 and one more are delivered.
    const second = scripted({ pages, finish: () => 10 });
    const handler = createLeadJobHandler(second.provider, {
      config: world.config,
      db: world.db,
      lifecycle: { ...world.api.deps.lifecycle, events: jobEventPublisher(connection, redisKeys(world.config.redis)) },
    });
    await handler(entry(jobId), 'token', new AbortController().signal);
    const leads = await leadsOf(jobId);
    expect(leads).toHaveLength(12);
    expect(new Set(leads).size).toBe(12);
    expect(leads).toContain('a0');
    expect(await findJob(world.db, jobId)).toMatchObject({ status: 'COMPLETE', deliveredCount: 12, creditsCharged: 24 });
    const ledger = await world.db.ledgerEntry.findMany({ where: { jobId, kind: 'charge' } });
    expect(ledger.map((e) => e.amount)).toEqual([24]);
  });

  it('when filters leave leads out before and after their finish, then the job pages on, counts each in skipped.filtered, and shows every upstream call on its body', async () => {
    const { provider, asked, finished } = scripted({
      pages: [
        { delayMs: 0, keys: keys('f', 4), filtered: 3 },
        { delayMs: 20, keys: keys('g', 4), filtered: 1 },
        { delayMs: 20, keys: keys('h', 4), filtered: 2 },
      ],
      finish: (key) => (key === 'f1' || key === 'f3' || key === 'h0' ? 'drop' : 10),
    });
    const { jobId, done } = await run(provider, 20);
    await done;
    // Nine survivors of twenty asked for: every page read, every lead finished, the source ran dry.
    expect(asked).toHaveLength(3);
    expect(finished).toHaveLength(12);
    const job = (await findJob(world.db, jobId))!;
    expect(job).toMatchObject({ status: 'PARTIAL', deliveredCount: 9, creditsCharged: 18 });
    // 6 left out by the adapter, 3 dropped by their finish; the last page's counted though no lead followed it
    expect(job.skippedFiltered).toBe(9);
    expect(job.upstreamCalls).toEqual({ scripted: 3, verifier: 12 });
  });

  it('when the worker stops before a page is decided, then its filtered leads are not counted, and the next worker counts each once', async () => {
    const pages = [
      { delayMs: 0, keys: keys('a', 5), filtered: 2 },
      { delayMs: 50, keys: keys('b', 5), filtered: 1 },
      { delayMs: 50, keys: keys('c', 5), filtered: 1 },
    ];
    const first = scripted({ pages, finish: (key) => (key === 'a0' ? 'hang' : key === 'c4' ? 'drop' : 10) });
    const stop = new AbortController();
    // 15 asked for, 14 survive: the second worker reads every page to the end (PARTIAL), so each is decided.
    const { jobId, done } = await run(first.provider, 15, stop.signal);
    const started = Date.now();
    while ((await findJob(world.db, jobId))!.deliveredCount < 13 && Date.now() - started < 5_000) await sleep(25);
    stop.abort('cancelled');
    await done;
    // The cursor never moved past page a: none of the filtered leads is on the job yet.
    expect(await findJob(world.db, jobId)).toMatchObject({ status: 'running', deliveredCount: 13, cursor: null, skippedFiltered: 0 });

    const second = scripted({ pages, finish: (key) => (key === 'c4' ? 'drop' : 10) });
    const handler = createLeadJobHandler(second.provider, {
      config: world.config,
      db: world.db,
      lifecycle: { ...world.api.deps.lifecycle, events: jobEventPublisher(connection, redisKeys(world.config.redis)) },
    });
    await handler(entry(jobId), 'token', new AbortController().signal);
    const job = (await findJob(world.db, jobId))!;
    expect(job).toMatchObject({ status: 'PARTIAL', deliveredCount: 14, creditsCharged: 28 });
    expect(job.skippedFiltered).toBe(5);
  });

  it("when a child of an area batch learns the batch's bound in one commit and reaches it in a later one, then it settles COMPLETE with its count lowered to what it delivered", async () => {
    // The batch lacks 8 when the child starts: its first slice (5, at once) learns the bound of 8, its second (3, from
    // the page that answers 500 ms later) reaches it, and commit_page lowers the row's requested_count to 8 then.
    const created = await world.http
      .post('/api/v1/leads/batches')
      .set(account.auth)
      .set('Idempotency-Key', idempotencyKey())
      .send({
        area: { bbox: { south: 41.8, west: -87.76, north: 41.86, east: -87.7 } },
        request: { category: 'dentist', state: 'US' },
        maxResults: 50,
      });
    expect(created.status).toBe(202);
    const batchId = created.body.batchId as string;
    const child = await world.db.job.findFirstOrThrow({ where: { batchId }, orderBy: { createdAt: 'asc' } });
    expect(child.requestedCount).toBeGreaterThan(8);
    await world.db.sql.query('UPDATE batches SET results_committed = max_results - 8 WHERE id = $1', [batchId]);
    const { provider } = scripted({
      pages: [
        { delayMs: 0, keys: keys('c', 5) },
        { delayMs: 500, keys: keys('d', 10) },
      ],
      finish: () => 0,
    });
    const handler = createLeadJobHandler(provider, {
      config: world.config,
      db: world.db,
      lifecycle: { ...world.api.deps.lifecycle, events: jobEventPublisher(connection, redisKeys(world.config.redis)) },
    });
    await handler(entry(child.id), 'token', new AbortController().signal);
    // Before the fix: PARTIAL source_exhausted beside a row that says 8 of 8 (the fault suite's invariant caught it).
    expect(await findJob(world.db, child.id)).toMatchObject({
      status: 'COMPLETE',
      stopReason: null,
      requestedCount: 8,
      deliveredCount: 8,
      creditsCharged: 16,
    });
    expect(await leadsOf(child.id)).toEqual([...keys('c', 5), ...keys('d', 3)]);
  });

  it("when the job has its leads before its last page is read to the end, then that page's filtered leads are counted as the job settles", async () => {
    // 10 listed and 3 left out by the adapter; a1 dropped by its finish; 4 wanted: the page is never decided.
    const { provider } = scripted({
      pages: [{ delayMs: 0, keys: keys('a', 10), filtered: 3 }],
      finish: (key) => (key === 'a1' ? 'drop' : 10),
    });
    const { jobId, done } = await run(provider, 4);
    await done;
    const job = (await findJob(world.db, jobId))!;
    expect(job).toMatchObject({ status: 'COMPLETE', deliveredCount: 4, skippedFiltered: 4 });
    expect(await leadsOf(jobId)).toEqual(['a0', 'a2', 'a3', 'a4']);
  });

  it("when a lead fails for good on a page not read to its end, then the job ends PARTIAL with that page's filtered leads counted", async () => {
    const { provider } = scripted({
      pages: [{ delayMs: 0, keys: keys('b', 5), filtered: 2 }],
      finish: (key) => (key === 'b3' ? 'fail' : key === 'b1' ? 'drop' : 10),
    });
    const { jobId, done } = await run(provider, 10);
    await done;
    const job = (await findJob(world.db, jobId))!;
    // b0 and b2 delivered (b4 comes after the failed b3), b1 and the adapter's 2 filtered
    expect(job).toMatchObject({ status: 'PARTIAL', deliveredCount: 2, skippedFiltered: 3 });
  });
});
