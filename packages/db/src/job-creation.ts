import type { GenerationRequest } from '@leadgen/domain';
import type { Database } from './client';
import { jobColumns, jobFromRow, type JobRecord, type JobRow } from './job-repository';

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
}

export type JobCreation =
  | { kind: 'created'; job: JobRecord }
  /** the key is bound to a live job already: a replay when `fingerprint` matches, else a reuse */
  | { kind: 'bound'; fingerprint: string; job: JobRecord }
  | { kind: 'insufficient_credits'; available: number };

// One statement does the whole creation, and each step only happens if the one before it did:
// - bind the key through its primary key (a live key conflicts, and a concurrent first call with
//   the same key waits here for ours to commit or roll back; an expired key is taken over);
// - reserve through a conditional UPDATE of the account's counters (no read, no long-held lock);
// - insert the job and the reserve row of the append-only ledger.
const CREATE_JOB = `
WITH bound AS (
  INSERT INTO idempotency_keys (account_id, key, fingerprint, job_id, created_at, expires_at)
  VALUES ($1, $2, $3, $4, now(), now() + make_interval(hours => $5))
  ON CONFLICT (account_id, key) DO UPDATE
    SET fingerprint = EXCLUDED.fingerprint, job_id = EXCLUDED.job_id, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
    WHERE idempotency_keys.expires_at <= now()
  RETURNING job_id
), reservation AS (
  UPDATE accounts SET reserved = reserved + $6
  WHERE id = $1 AND balance - reserved >= $6 AND EXISTS (SELECT 1 FROM bound)
  RETURNING id
), job AS (
  INSERT INTO jobs (id, account_id, result_set_id, source, request, requested_count, credits_reserved)
  SELECT $4, $1, $7, $8::"Source", $9::jsonb, $10, $6 FROM reservation
  RETURNING ${jobColumns()}
), ledger AS (
  INSERT INTO credit_ledger (account_id, job_id, kind, amount) SELECT $1, $4, 'reserve', $6 FROM reservation
)
SELECT (SELECT count(*) FROM bound)::int AS bound, job.* FROM (SELECT 1) AS one LEFT JOIN job ON true`;

const BOUND_JOB = `
SELECT k.fingerprint, ${jobColumns('j')}
FROM idempotency_keys k JOIN jobs j ON j.id = k.job_id
WHERE k.account_id = $1 AND k.key = $2 AND k.expires_at > now()`;

/**
 * Creates a job with its reservation and idempotency binding, calls `beforeCommit` (the enqueue)
 * while the transaction is still open, and commits only if it succeeded: a refused enqueue leaves
 * no job, no reservation and no bound key. Three statements on one connection: BEGIN, the
 * creation, COMMIT. A replay, a reused key or a short account is answered after a ROLLBACK.
 */
export async function createJob(db: Database, job: NewJob, beforeCommit: (created: JobRecord) => Promise<void>): Promise<JobCreation> {
  const client = await db.sql.connect();
  let broken: Error | undefined;
  try {
    // A key bound by a call that is rolling back, or expiring at this instant, can vanish between
    // our statements: then the creation is simply tried again.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await client.query('BEGIN');
      let open = true;
      try {
        const { rows } = await client.query<Partial<JobRow> & { bound: number }>(CREATE_JOB, [
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
        ]);
        const row = rows[0]!;
        if (row.id) {
          const created = jobFromRow(row as JobRow);
          await beforeCommit(created);
          await client.query('COMMIT');
          open = false;
          return { kind: 'created', job: created };
        }
        await client.query('ROLLBACK');
        open = false;
        if (row.bound === 1) {
          const { rows: account } = await client.query<{ available: string }>('SELECT balance - reserved AS available FROM accounts WHERE id = $1', [
            job.accountId,
          ]);
          return { kind: 'insufficient_credits', available: Number(account[0]?.available ?? 0) };
        }
        const { rows: existing } = await client.query<JobRow & { fingerprint: string }>(BOUND_JOB, [job.accountId, job.idempotencyKey]);
        if (existing[0]) return { kind: 'bound', fingerprint: existing[0].fingerprint, job: jobFromRow(existing[0]) };
      } finally {
        if (open) await client.query('ROLLBACK').catch((error: Error) => (broken = error));
      }
    }
    throw new Error(`idempotency key could neither be bound nor read after 3 attempts`);
  } catch (error) {
    broken ??= isConnectionLost(error) ? (error as Error) : undefined;
    throw error;
  } finally {
    // A connection whose state is unknown (lost mid-transaction) is destroyed, not reused.
    client.release(broken);
  }
}

function isConnectionLost(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  return code.startsWith('08') || code.startsWith('57P') || /Connection terminated|ECONN/.test(String((error as Error).message));
}
