// Baseline (d), the durable floor (issue 32): the same durable work as a sync generate of 25 leads, done the simplest
// correct way, in the fewest transactions. POST → one statement (the idempotency key, the credits reserved on the
// account's credit stripes, the job row, its `reserve` ledger row) → queue.add → a BullMQ worker in another process →
// one statement (the 25 lead rows, the account's delivery memory, the job COMPLETE, its `release` and `charge` ledger
// rows, the credits settled) → the completion event (QueueEvents) → one read of the job and its leads → 200 with them.
// The same rows as the service writes and bills, in the same bench database (its own account, FLOOR_ACCOUNT_ID); what
// it leaves out is what the service adds beyond durability: authentication, validation, fair release, suppressions,
// webhooks, metrics. BASELINE_ROLE=api or worker picks the half this process runs.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { Pool } from 'pg';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { loadConfig } from '@leadgen/config';
import { createTestProviders, type LeadProvider } from '@leadgen/providers';
import { JOB_OPTIONS, PORT, PREFIX, connection } from './shared';

const QUEUE = 'bench-floor';
const ACCOUNT = process.env.FLOOR_ACCOUNT_ID ?? '';
const LEADS = 25;
// The service's tariff for google_maps (packages/domain billing): reservation and charge of 25 leads.
const RESERVE = Number(process.env.FLOOR_RESERVE ?? 50);
const CHARGE = Number(process.env.FLOOR_CHARGE ?? 50);
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

const CREATE = `
WITH k AS (
  INSERT INTO idempotency_keys (account_id, key, fingerprint, job_id, created_at, expires_at)
  VALUES ($1, $2, 'floor', $3, now(), now() + interval '1 hour') RETURNING job_id
), r AS (
  SELECT reserve_credits($1, k.job_id, $4) AS short FROM k
), j AS (
  INSERT INTO jobs (id, account_id, result_set_id, source, request, requested_count, credits_reserved, released_at)
  SELECT $3, $1, $5, 'google_maps', $6::jsonb, ${LEADS}, $4, now() FROM r WHERE r.short IS NULL RETURNING id
), l AS (
  INSERT INTO credit_ledger (account_id, job_id, kind, amount) SELECT $1, j.id, 'reserve', $4 FROM j
)
SELECT (SELECT count(*) FROM j)::int AS created`;

const SETTLE = `
WITH j AS (
  SELECT id, account_id, credits_reserved, created_at FROM jobs WHERE id = $1 AND status IN ('queued', 'running') FOR UPDATE
), ins AS (
  INSERT INTO leads (job_id, job_created_at, position, dedup_key, data)
  SELECT j.id, j.created_at, x.ord - 1, x.item->>'k', x.item->'d' FROM j, jsonb_array_elements($2::jsonb) WITH ORDINALITY AS x(item, ord)
  RETURNING dedup_key
), remembered AS (
  INSERT INTO account_deliveries (account_id, source, dedup_key, job_id)
  SELECT j.account_id, 'google_maps', encode(sha256(convert_to(ins.dedup_key, 'UTF8')), 'hex'), j.id FROM j, ins
  ON CONFLICT DO NOTHING
), u AS (
  UPDATE jobs SET status = 'COMPLETE', delivered_count = ${LEADS}, provider = 'floor', started_at = now(), finished_at = now(),
    credits_charged = $3, updated_at = now()
  WHERE id IN (SELECT id FROM j) RETURNING account_id, credits_reserved
), lr AS (
  INSERT INTO credit_ledger (account_id, job_id, kind, amount) SELECT u.account_id, $1, 'release', u.credits_reserved FROM u
), lc AS (
  INSERT INTO credit_ledger (account_id, job_id, kind, amount) SELECT u.account_id, $1, 'charge', $3 FROM u
)
SELECT settle_credits(u.account_id, $1, $3, u.credits_reserved) FROM u`;

const READ = `SELECT j.id, j.status::text AS status, j.delivered_count,
  (SELECT json_agg(l.data ORDER BY l.position) FROM leads l WHERE l.job_id = j.id)::text AS leads
FROM jobs j WHERE j.id = $1`;

function api(): void {
  const queue = new Queue(QUEUE, { connection: connection(), prefix: PREFIX });
  const events = new QueueEvents(QUEUE, { connection: connection(), prefix: PREFIX });
  const waiters = new Map<string, () => void>();
  events.on('completed', ({ jobId }) => waiters.get(jobId)?.());
  const app = express();
  app.use(express.json());
  app.get('/ready', async (_req, res) => {
    await events.waitUntilReady();
    const workers = await queue.getWorkersCount();
    res.status(workers > 0 ? 200 : 503).json({ workers });
  });
  app.post('/jobs', async (req, res) => {
    const jobId = `job_${randomUUID().replace(/-/g, '')}`;
    const key = String(req.headers['idempotency-key'] ?? randomUUID());
    const { rows } = await pool.query<{ created: number }>(CREATE, [
      ACCOUNT,
      key,
      jobId,
      RESERVE,
      `rs_${randomUUID().replace(/-/g, '')}`,
      JSON.stringify(req.body),
    ]);
    if (rows[0]?.created !== 1) {
      res.status(409).json({ error: 'key bound or credits short' });
      return;
    }
    const done = new Promise<void>((resolve) => waiters.set(jobId, resolve));
    await queue.add('job', { jobId }, { ...JOB_OPTIONS, jobId });
    await done;
    waiters.delete(jobId);
    const read = await pool.query<{ id: string; status: string; delivered_count: number; leads: string }>(READ, [jobId]);
    const job = read.rows[0]!;
    res
      .status(200)
      .type('application/json')
      .send(`{"jobId":"${job.id}","status":"${job.status}","deliveredCount":${job.delivered_count},"leads":${job.leads}}`);
  });
  app.listen(PORT, '127.0.0.1');
  process.on('SIGTERM', () => void Promise.all([queue.close(), events.close(), pool.end()]).finally(() => process.exit(0)));
}

/**
 * The sandbox's own 25 leads of the bench's google_maps query, verified as the service's: the same bytes as it stores,
 * made for each job as the service makes them (the sandbox stands for the upstream: its work is the job's, not the
 * service's overhead).
 */
let provider: LeadProvider<'google_maps'> | undefined;
async function sandboxLeads(): Promise<string> {
  provider ??= createTestProviders(loadConfig(process.env, 'worker'), ['google_maps']).google_maps!;
  const items: Array<{ k: string; d: unknown }> = [];
  const signal = new AbortController().signal;
  const request = { source: 'google_maps', category: 'dentist', state: 'US', city: 'Austin', maxResults: LEADS } as const;
  for await (const page of provider.search(request as never, { signal, cursor: null, deadline: Date.now() + 60_000 })) {
    for (const lead of page.leads) {
      if (page.finish) await page.finish(lead, signal);
      items.push({ k: lead.dedupKey, d: lead.lead });
    }
    if (items.length >= LEADS) break;
  }
  return JSON.stringify(items.slice(0, LEADS));
}

// FLOOR_SPLIT=1 (the bench's --floor-split): the job's start in a transaction of its own first, as the service's
// worker did before decision 037's merge: one transaction more per job, to see that the floor's figures move with it.
const SPLIT = process.env.FLOOR_SPLIT === '1';
const START = `UPDATE jobs SET status = 'running', provider = 'floor', started_at = now(), updated_at = now() WHERE id = $1 AND status = 'queued'`;

function worker(): void {
  const w = new Worker(
    QUEUE,
    async (job) => {
      const jobId = (job.data as { jobId: string }).jobId;
      if (SPLIT) await pool.query(START, [jobId]);
      await pool.query(SETTLE, [jobId, await sandboxLeads(), CHARGE]);
      return null;
    },
    { connection: connection(), prefix: PREFIX, concurrency: Number(process.env.BASELINE_CONCURRENCY ?? 50) },
  );
  process.on('SIGTERM', () => void w.close().finally(() => void pool.end().finally(() => process.exit(0))));
}

if (process.env.BASELINE_ROLE === 'worker') worker();
else api();
