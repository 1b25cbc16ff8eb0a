import { secretContext } from './secret-box';
import type { GenerationRequest } from '@leadgen/domain';
import type { Database, Queryable } from './client';

export interface NewJob {
  accountId: string;
  idempotencyKey: string;
  /** sha256 of the normalised request: the same key with another body is refused */
  fingerprint: string;
  idempotencyTtlHours: number;
  jobId: string;
  resultSetId: string;
  request: GenerationRequest;
  /** the worst case, reserved now and settled at the terminal status */
  creditsReserved: number;
  /**
   * A fresh `whsec_` secret, used only when the request has a webhookUrl and the account has no
   * default webhook secret yet: it becomes that secret (decision 016).
   */
  webhookSecretCandidate?: string;
  /** the account's share of its source's queue (docs/ARCHITECTURE.md#glossary, decision 020); 0: none, released at once */
  share: number;
}

export type JobInsertion =
  /** `released`: the jobs the statement released, oldest first: this one unless held (the account is at its share), and older held ones */
  | { kind: 'created'; jobId: string; held: boolean; released: string[] }
  /** the key is bound to a live job already: a replay when `fingerprint` matches, else a reuse */
  | { kind: 'bound'; jobId: string; fingerprint: string }
  | { kind: 'insufficient_credits'; available: number };

// Undoes a creation whose enqueue failed, in one statement: the job (still queued: no worker has
// it), its key binding, and its reservation, released through the ledger (which keeps both rows) and on
// one of the account's credit stripes (prisma/functions/settle_credits.sql, charging nothing).
const WITHDRAW_JOB = `
WITH job AS (
  DELETE FROM jobs WHERE id = $1 AND status = 'queued' RETURNING account_id, credits_reserved
), unbound AS (
  DELETE FROM idempotency_keys k USING job WHERE k.account_id = job.account_id AND k.job_id = $1
), released AS (
  INSERT INTO credit_ledger (account_id, job_id, kind, amount) SELECT account_id, $1, 'release', credits_reserved FROM job
)
SELECT count(*)::int AS withdrawn FROM job, settle_credits(job.account_id, $1, 0, job.credits_reserved)`;

/**
 * Inserts a job with its reservation and idempotency binding in one statement (prisma/functions/create_job.sql,
 * docs/decisions/011). A replay, a reused key or a short account writes nothing. What to do with the jobs it
 * released, and with a creation whose enqueue failed (withdrawJob), is the caller's (@leadgen/commands).
 */
export async function insertJob(db: Database, job: NewJob): Promise<JobInsertion> {
  // A key bound to a creation being withdrawn at this instant can vanish between the function's
  // conflict and its read: then the creation is simply tried again.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const creation = await insertJobWithin(db.sql, db, job);
    if (creation) return creation;
  }
  throw new Error('idempotency key could neither be bound nor read after 3 attempts');
}

/**
 * Undoes a creation whose enqueue failed: no job, no reservation and no bound key are left. If PostgreSQL cannot
 * be reached either, the job stays queued without an entry and the lost-job sweep enqueues it later.
 */
export async function withdrawJob(db: Database, jobId: string): Promise<void> {
  await db.sql.query(WITHDRAW_JOB, [jobId]).catch(() => undefined);
}

/**
 * The one call of create_job: generate (insertJob above) and a monitor's run both go through it, so a
 * change of its arguments is made here once. On a client whose transaction the caller holds, a monitor's
 * run is created, tagged and recorded together (@leadgen/commands monitor-runs.ts). Null when the key
 * vanished between its conflict and its read.
 */
export async function insertJobWithin(q: Queryable, db: Pick<Database, 'secrets'>, job: NewJob): Promise<JobInsertion | null> {
  const { rows } = await q.query<{
    o_outcome: string;
    o_job_id: string | null;
    o_fingerprint: string | null;
    o_available: string | null;
    o_released: string[] | null;
  }>('SELECT * FROM create_job($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)', [
    job.accountId,
    job.idempotencyKey,
    job.fingerprint,
    job.jobId,
    job.idempotencyTtlHours,
    job.creditsReserved,
    job.resultSetId,
    job.request.source,
    JSON.stringify(job.request),
    job.request.maxResults,
    job.request.webhookUrl ?? null,
    // Sealed here: create_job stores it as the account's default secret when it has none yet.
    job.request.webhookUrl && job.webhookSecretCandidate
      ? db.secrets.seal(job.webhookSecretCandidate, secretContext.accountDefault(job.accountId))
      : null,
    job.share,
  ]);
  const row = rows[0];
  if (!row) return null;
  if (row.o_outcome === 'insufficient_credits') return { kind: 'insufficient_credits', available: Number(row.o_available ?? 0) };
  if (row.o_outcome === 'bound') return { kind: 'bound', jobId: row.o_job_id!, fingerprint: row.o_fingerprint! };
  const released = row.o_released ?? [];
  return { kind: 'created', jobId: job.jobId, held: !released.includes(job.jobId), released };
}
