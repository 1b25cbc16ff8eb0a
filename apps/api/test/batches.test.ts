import { createHmac } from 'node:crypto';
import { creditSummary } from '@leadgen/db';
import { generate, idempotencyKey, startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/webhook-receiver';

// The sandbox answers one search with the same leads every time, as a real upstream would: two children
// over one area overlap entirely, which is what the batch's dedup must catch.
const area = { category: 'dentist', state: 'US', city: 'Austin', keyword: 'sandbox:only=30' };
const keyOf = (lead: { businessName: string; address: string }) => `${lead.businessName}|${lead.address}`;

function createBatch(world: TestWorld, account: TestAccount, body: unknown, key = idempotencyKey()) {
  return world.http
    .post('/api/v1/leads/batches')
    .set(account.auth)
    .set('Idempotency-Key', key)
    .send(body as object);
}

async function pollBatch(world: TestWorld, account: TestAccount, batchId: string, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await world.http.get(`/api/v1/leads/batches/${batchId}`).set(account.auth);
    if (res.status !== 200) throw new Error(`poll answered ${res.status}: ${JSON.stringify(res.body)}`);
    if (res.body.terminal) return res.body;
    if (Date.now() > until) throw new Error(`batch ${batchId} not terminal after ${timeoutMs} ms: ${JSON.stringify(res.body.counts)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function childrenOf(world: TestWorld, account: TestAccount, batchId: string) {
  const res = await world.http.get(`/api/v1/leads/batches/${batchId}/jobs?limit=100`).set(account.auth);
  expect(res.status).toBe(200);
  return res.body.items as Array<{
    jobId: string;
    batchId: string;
    status: string;
    creditsCharged: number;
    terminal?: { stopReason: string | null; deliveredCount: number };
  }>;
}

describe('batches through an in-process worker', () => {
  let world: TestWorld;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    world = await startWorld({ env: { WORKER_CONCURRENCY: '8', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await world?.close();
  });

  it('when an account with a long batch running asks for a single job, then the batch holds at most half the account’s share, and the job is released at once beside it and answers at once', async () => {
    const account = await buildAccount(world.db, { credits: 100_000 });
    // 30 children of three 500 ms pages each, two at a time (half the account's share of 4): the last would start
    // after ~22 s.
    const requests = Array.from({ length: 30 }, (_, i) => ({
      category: 'optician',
      state: 'US',
      city: `Slow ${i}`,
      keyword: 'sandbox:delay=500',
      maxResults: 30,
    }));
    const created = await createBatch(world, account, { requests });
    expect(created.status).toBe(202);
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    const single = await generate(world, account, { category: 'dentist', state: 'US', maxResults: 5 });
    expect(single.status).toBe(200);
    // It waits for no child to end (one takes 1.5 s): the other half of the share is free for it.
    expect(Date.now() - started).toBeLessThan(1_200);
    const batch = await world.http.get(`/api/v1/leads/batches/${created.body.batchId}`).set(account.auth);
    expect(batch.body.status).toBe('running');
    expect(batch.body.counts.queued).toBeGreaterThan(10);
    const { rows } = await world.db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM jobs WHERE batch_id = $1 AND status IN ('queued', 'running') AND released_at IS NOT NULL`,
      [created.body.batchId],
    );
    expect(rows[0]!.n).toBe(2);
    await world.http.delete(`/api/v1/leads/batches/${created.body.batchId}`).set(account.auth);
  });

  it('when a batch with a webhookUrl ends, then its event arrives once, signed, with the terminal batch body, and no child sends there', async () => {
    const account = await buildAccount(world.db, { credits: 10_000 });
    const created = await createBatch(world, account, {
      webhookUrl: receiver.url('/batch'),
      requests: [
        { ...area, city: 'Hooks', maxResults: 5 },
        { ...area, city: 'Hooks', keyword: 'sandbox:empty', maxResults: 5 },
      ],
    });
    const batch = await pollBatch(world, account, created.body.batchId);
    expect(batch.status).toBe('PARTIAL');
    const secret = await world.http.post('/api/v1/webhooks/default-secret').set(account.auth);
    expect([200, 201]).toContain(secret.status);
    const until = Date.now() + 10_000;
    while (receiver.received.filter((r) => r.path === '/batch').length === 0 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    const got = receiver.received.filter((r) => r.path === '/batch');
    expect(got).toHaveLength(1);
    // Standard Webhooks: v1 = base64 HMAC-SHA256, keyed with the secret's base64 part, of "{id}.{timestamp}.{body}".
    const { headers, body } = got[0]!;
    const key = Buffer.from(String(secret.body.secret).slice('whsec_'.length), 'base64');
    const signed = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest('base64');
    expect(headers['webhook-signature']!.split(' ')).toContain(`v1,${signed}`);
    const event = JSON.parse(body) as { type: string; data: Record<string, unknown> };
    expect(event.type).toBe('batch.partial');
    expect(event.data).toMatchObject({
      batchId: created.body.batchId,
      status: 'PARTIAL',
      deliveredCount: 5,
      terminal: { status: 'PARTIAL' },
    });
    expect(event.data.leadsUrl).toEqual(expect.stringContaining(`/api/v1/leads/batches/${created.body.batchId}/leads`));
  });

  it('when a batch has overlapping areas, then every child settles, each lead is delivered and billed once, and the counts add up', async () => {
    const account = await buildAccount(world.db, { credits: 10_000 });
    const created = await createBatch(world, account, {
      name: 'Austin dentists',
      requests: [
        { ...area, maxResults: 25 },
        { ...area, maxResults: 25 },
        { ...area, city: 'Dallas', maxResults: 5 },
      ],
    });
    expect(created.status).toBe(202);
    expect(created.get('Location')).toBe(created.body.pollUrl);
    expect(created.body).toMatchObject({ status: 'running', childCount: 3, requestedCount: 55, name: 'Austin dentists' });

    const batch = await pollBatch(world, account, created.body.batchId);
    // 30 exist in Austin: two children of 25 over it deliver 30 between them, never one twice; Dallas 5.
    expect(batch.deliveredCount).toBe(35);
    expect(batch.status).toBe('PARTIAL');
    const counts = batch.counts as Record<string, number>;
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(3);
    expect([counts.queued, counts.running]).toEqual([0, 0]);

    const children = await childrenOf(world, account, created.body.batchId);
    expect(children.map((c) => c.batchId)).toEqual([created.body.batchId, created.body.batchId, created.body.batchId]);
    expect(children.reduce((sum, c) => sum + c.creditsCharged, 0)).toBe(batch.creditsCharged);
    expect(batch.creditsCharged).toBe(
      children.reduce((sum, c) => sum + Math.max(2 * c.terminal!.deliveredCount, c.terminal!.deliveredCount ? 10 : 0), 0),
    );

    const leads = await world.http.get(`/api/v1/leads/batches/${created.body.batchId}/leads?limit=1000`).set(account.auth);
    expect(leads.status).toBe(200);
    expect(leads.body.complete).toBe(true);
    const keys = (leads.body.items as Array<{ lead: { businessName: string; address: string } }>).map((item) => keyOf(item.lead));
    expect(keys).toHaveLength(35);
    expect(new Set(keys).size).toBe(35);

    // The children are jobs: the job listing finds them by batch, and the CSV streams the same leads.
    const listed = await world.http.get(`/api/v1/leads/jobs?batchId=${created.body.batchId}`).set(account.auth);
    expect(listed.body.items).toHaveLength(3);
    const csv = await world.http.get(`/api/v1/leads/batches/${created.body.batchId}/leads.csv`).set(account.auth);
    expect(csv.status).toBe(200);
    expect(csv.text.trim().split('\r\n')).toHaveLength(36);
    expect(await creditSummary(world.db, account.accountId)).toMatchObject({ balance: 10_000 - batch.creditsCharged, reserved: 0 });
  });

  it('when a LinkedIn batch runs, then its claims are the profile URLs’ SHA-256 digests of exactly the leads delivered, and none is left once it is terminal', async () => {
    const account = await buildAccount(world.db, { credits: 10_000 });
    const people = {
      source: 'linkedin',
      category: 'cto',
      state: 'US',
      city: 'Austin',
      keyword: 'sandbox:only=30;delay=150',
      maxResults: 25,
    };
    const created = await createBatch(world, account, { requests: [people, people] });
    expect(created.status).toBe(202);
    const batchId = created.body.batchId as string;

    // One statement, one snapshot: the claims against the children's leads, by digest.
    const compare = async () => {
      const { rows } = await world.db.sql.query<{ claims: number; not_digests: number; unmatched_claims: number; unclaimed_leads: number }>(
        `WITH c AS (SELECT dedup_key FROM batch_deliveries WHERE batch_id = $1),
              l AS (SELECT encode(sha256(convert_to(l.dedup_key, 'UTF8')), 'hex') AS digest FROM leads l JOIN jobs j ON j.id = l.job_id WHERE j.batch_id = $1)
         SELECT (SELECT count(*)::int FROM c) AS claims,
                (SELECT count(*)::int FROM c WHERE dedup_key !~ '^[0-9a-f]{64}$') AS not_digests,
                (SELECT count(*)::int FROM c WHERE dedup_key NOT IN (SELECT digest FROM l)) AS unmatched_claims,
                (SELECT count(*)::int FROM l WHERE digest NOT IN (SELECT dedup_key FROM c)) AS unclaimed_leads`,
        [batchId],
      );
      return rows[0]!;
    };
    let seen = { claims: 0, not_digests: 0, unmatched_claims: 0, unclaimed_leads: 0 };
    for (const until = Date.now() + 10_000; seen.claims === 0 && Date.now() < until;) {
      seen = await compare();
      if (seen.claims === 0) await new Promise((r) => setTimeout(r, 20));
    }
    expect(seen.claims).toBeGreaterThan(0);
    expect(seen).toMatchObject({ not_digests: 0, unmatched_claims: 0, unclaimed_leads: 0 });

    const batch = await pollBatch(world, account, batchId);
    expect(batch.deliveredCount).toBe(30);
    const leads = await world.http.get(`/api/v1/leads/batches/${batchId}/leads?limit=1000`).set(account.auth);
    const profiles = (leads.body.items as Array<{ lead: { person: { linkedinUrl: string } } }>).map((item) => item.lead.person.linkedinUrl);
    expect(new Set(profiles).size).toBe(30);
    expect(await compare()).toEqual({ claims: 0, not_digests: 0, unmatched_claims: 0, unclaimed_leads: 30 });
  });

  it('when maxCredits cannot cover every child, then it is never exceeded and the uncovered children end batch_budget_exhausted', async () => {
    const account = await buildAccount(world.db, { credits: 10_000 });
    // Each child reserves max(2 × 10, 10) = 20 as it starts: 50 covers two at a time at most.
    const requests = Array.from({ length: 6 }, (_, i) => ({ category: 'bakery', state: 'FR', city: `Ville ${i}`, maxResults: 10 }));
    const created = await createBatch(world, account, { requests, maxCredits: 50 });
    expect(created.status).toBe(202);
    const batch = await pollBatch(world, account, created.body.batchId);
    expect(batch.creditsCharged).toBeLessThanOrEqual(50);
    expect(batch.creditsCharged).toBe(40);
    const children = await childrenOf(world, account, created.body.batchId);
    const exhausted = children.filter((c) => c.terminal?.stopReason === 'batch_budget_exhausted');
    expect(exhausted).toHaveLength(4);
    for (const child of exhausted) expect(child).toMatchObject({ status: 'CANCELLED', creditsCharged: 0 });
    expect(batch.counts).toMatchObject({ COMPLETE: 2, CANCELLED: 4 });
    expect(await creditSummary(world.db, account.accountId)).toMatchObject({ balance: 10_000 - 40, reserved: 0 });
  });

  it('when the owner cancels a running batch, then every open child is cancelled, the batch is CANCELLED, and DELETE again answers the same', async () => {
    const account = await buildAccount(world.db, { credits: 10_000 });
    const requests = Array.from({ length: 12 }, (_, i) => ({
      category: 'florist',
      state: 'DE',
      city: `Stadt ${i}`,
      keyword: 'sandbox:delay=300',
      maxResults: 30,
    }));
    const created = await createBatch(world, account, { requests });
    const stranger = await buildAccount(world.db, { credits: 0 });
    expect((await world.http.delete(`/api/v1/leads/batches/${created.body.batchId}`).set(stranger.auth)).status).toBe(404);
    await new Promise((r) => setTimeout(r, 400));
    const cancelled = await world.http.delete(`/api/v1/leads/batches/${created.body.batchId}`).set(account.auth);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'CANCELLED', terminal: { status: 'CANCELLED', childCount: 12 } });
    expect(cancelled.body.counts.CANCELLED).toBeGreaterThan(0);
    const again = await world.http.delete(`/api/v1/leads/batches/${created.body.batchId}`).set(account.auth);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(cancelled.body);
    const children = await childrenOf(world, account, created.body.batchId);
    expect(children.every((c) => c.terminal)).toBe(true);
    // Terminal: its claims went with the settlement that ended it.
    const claims = await world.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM batch_deliveries WHERE batch_id = $1', [
      created.body.batchId,
    ]);
    expect(claims.rows[0]!.n).toBe(0);
    // What was delivered before the cancel is kept and billed, once.
    expect(children.reduce((sum, c) => sum + c.creditsCharged, 0)).toBe(cancelled.body.creditsCharged);
    expect(await creditSummary(world.db, account.accountId)).toMatchObject({
      balance: 10_000 - cancelled.body.creditsCharged,
      reserved: 0,
    });
  });
});

describe('POST /api/v1/leads/batches: refusals (no worker)', () => {
  let world: TestWorld;
  let account: TestAccount;
  beforeAll(async () => {
    world = await startWorld({ worker: false });
    account = await buildAccount(world.db, { credits: 10_000 });
  });
  afterAll(() => world.close());

  it('when requests have problems, then 400 lists every one with a pointer into the array, and nothing is created', async () => {
    const res = await createBatch(world, account, {
      requests: [
        { category: 'dentist', state: 'US' },
        { category: 'dentist', state: 'Texas' },
        { state: 'US', maxResults: 101 },
      ],
      maxCredits: 0,
      surprise: true,
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    const pointers = (res.body.errors as Array<{ pointer: string }>).map((e) => e.pointer).sort();
    expect(pointers).toEqual(['#/maxCredits', '#/requests/1/state', '#/requests/2/category', '#/requests/2/maxResults', '#/surprise']);
    const empty = await createBatch(world, account, { requests: [] });
    expect(empty.body.errors[0].pointer).toBe('#/requests');
    const tooMany = await createBatch(world, account, { requests: Array.from({ length: 1001 }, () => ({ category: 'x', state: 'US' })) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0].pointer).toBe('#/requests');
    const listed = await world.http.get('/api/v1/leads/batches').set(account.auth);
    expect(listed.body.items).toEqual([]);
  });

  it('when the Idempotency-Key is missing, then 400 idempotency_key_missing', async () => {
    const res = await world.http
      .post('/api/v1/leads/batches')
      .set(account.auth)
      .send({ requests: [{ category: 'dentist', state: 'US' }] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('idempotency_key_missing');
  });

  it('when the account cannot cover the first child, then 402 and no batch, and the key stays free', async () => {
    const poor = await buildAccount(world.db, { credits: 15 });
    const key = idempotencyKey();
    const res = await createBatch(world, poor, { requests: [{ category: 'dentist', state: 'US', maxResults: 25 }] }, key);
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ code: 'insufficient_credits', required: 50, available: 15 });
    const cheaper = await createBatch(world, poor, { requests: [{ category: 'dentist', state: 'US', maxResults: 5 }] }, key);
    expect(cheaper.status).toBe(202);
  });

  it('when the same key comes again, then the same body replays the batch and another body is 422', async () => {
    const key = idempotencyKey();
    const body = { requests: [{ category: 'dentist', state: 'US', maxResults: 5 }], name: 'once' };
    const first = await createBatch(world, account, body, key);
    const replay = await createBatch(world, account, body, key);
    expect(replay.status).toBe(202);
    expect(replay.get('Idempotent-Replayed')).toBe('true');
    expect(replay.body.batchId).toBe(first.body.batchId);
    const reused = await createBatch(world, account, { ...body, name: 'twice' }, key);
    expect(reused.status).toBe(422);
    const [a, b] = await Promise.all([createBatch(world, account, body, `${key}-race`), createBatch(world, account, body, `${key}-race`)]);
    expect(a.body.batchId).toBe(b.body.batchId);
  });

  it('when another account asks for a batch, then 404 batch_not_found; a malformed id is 404 too; the list pages', async () => {
    const created = await createBatch(world, account, { requests: [{ category: 'dentist', state: 'US', maxResults: 5 }] });
    const stranger = await buildAccount(world.db, { credits: 0 });
    const res = await world.http.get(`/api/v1/leads/batches/${created.body.batchId}`).set(stranger.auth);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('batch_not_found');
    expect((await world.http.get('/api/v1/leads/batches/bat_nope').set(account.auth)).status).toBe(404);
    const page = await world.http.get('/api/v1/leads/batches?limit=1').set(account.auth);
    expect(page.body.items).toHaveLength(1);
    expect(page.body.nextCursor).toEqual(expect.any(String));
    const next = await world.http.get(`/api/v1/leads/batches?limit=1&cursor=${page.body.nextCursor}`).set(account.auth);
    expect(next.status).toBe(200);
    expect(next.body.items[0].batchId).not.toBe(page.body.items[0].batchId);
  });
});
