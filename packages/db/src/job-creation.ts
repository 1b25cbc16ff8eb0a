import { secretContext } from './secret-box';
import type { GenerationRequest } from '@leadgen/domain';
import type { Database } from './client';
import type { FairRelease } from './fair-release';

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
  /** the per-account cap of open released jobs per source (decision 020); unset: no cap, released at once */
  fairness?: FairRelease;
}

export type JobCreation =
  /** `held`: the account is at its cap for the source, the job waits in PostgreSQL to be released (decision 020) */
  | { kind: 'created'; jobId: string; held: boolean }
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
 * Creates a job with its reservation and idempotency binding in one statement (prisma/functions/create_job.sql,
 * docs/decisions/011), then hands `enqueue` the jobs that statement released, oldest first: this one unless
 * its account is at its cap for the source (it is then held, and released by a later settlement: decision 020),
 * and older held ones that fit now. If the enqueue fails, the creation is withdrawn before the error goes on:
 * a refused enqueue leaves no job, no reservation and no bound key. A replay, a reused key or a short
 * account writes nothing.
 */
export async function createJob(db: Database, job: NewJob, enqueue: (released: readonly string[]) => Promise<void>): Promise<JobCreation> {
  // A key bound to a creation being withdrawn at this instant can vanish between the function's
  // conflict and its read: then the creation is simply tried again.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const creation = await createJobWithin(db.sql, db, job);
    if (!creation) continue;
    if (creation.kind !== 'created') return creation;
    const { released, ...created } = creation;
    try {
      // Called with none too: the caller decides whether a held job may be created while its queue is away.
      await enqueue(released);
    } catch (error) {
      // If PostgreSQL cannot be reached either, the job stays queued without an entry and the
      // lost-job sweep enqueues it later; a retry with the same key replays it meanwhile.
      await db.sql.query(WITHDRAW_JOB, [job.jobId]).catch(() => undefined);
      throw error;
    }
    return created;
  }
  throw new Error('idempotency key could neither be bound nor read after 3 attempts');
}

/** Anything with pg's `query`: the pool, or a client holding a transaction. */
export interface Queryable {
  query: Database['sql']['query'];
}

/** A creation as create_job answers it: `released` are the jobs it released, this one among them unless held. */
export type JobCreationWithin =
  { kind: 'created'; jobId: string; held: boolean; released: string[] } | Exclude<JobCreation, { kind: 'created' }>;

/**
 * The one call of create_job: generate (createJob above) and a monitor's run both go through it, so a
 * change of its arguments is made here once. On a client whose transaction the caller holds, a monitor's
 * run is created, tagged and recorded together (monitor-runs.ts) and what it released is enqueued after
 * the commit. Null when the key vanished between its conflict and its read.
 */
export async function createJobWithin(q: Queryable, db: Pick<Database, 'secrets'>, job: NewJob): Promise<JobCreationWithin | null> {
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
    job.fairness?.openJobsPerAccount ?? 0,
  ]);
  const row = rows[0];
  if (!row) return null;
  if (row.o_outcome === 'insufficient_credits') return { kind: 'insufficient_credits', available: Number(row.o_available ?? 0) };
  if (row.o_outcome === 'bound') return { kind: 'bound', jobId: row.o_job_id!, fingerprint: row.o_fingerprint! };
  const released = row.o_released ?? [];
  return { kind: 'created', jobId: job.jobId, held: !released.includes(job.jobId), released };
}
