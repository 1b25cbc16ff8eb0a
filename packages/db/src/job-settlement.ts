import { chargeFor, decideTerminal, isTerminal, type JobOutcome, type Source } from '@leadgen/domain';
import type { Database } from './client';
import { findJob, jobColumns, jobFromRow, type JobRecord, type JobRow } from './job-repository';

export interface Settlement {
  job: JobRecord;
  /** false when the job had already reached a terminal status: nothing was changed */
  settled: boolean;
}

/** What the settling side believes about the job; checked by the statement, re-read when stale. */
export interface SettlementBasis {
  source: Source;
  requestedCount: number;
  deliveredCount: number;
}

// One statement: the compare-and-set that makes a terminal status final (it matches only a job that
// is not terminal and still has the delivered count the decision was made from), the ledger's
// release and charge rows (unique per job and kind: a second settlement is impossible whatever code
// runs), and the account's counters, all or nothing.
const SETTLE = `
WITH job AS (
  UPDATE jobs SET status = $2::"JobStatus", stop_reason = $3, credits_charged = $4, finished_at = now(), updated_at = now()
  WHERE id = $1 AND status IN ('queued', 'running') AND delivered_count = $5
  RETURNING ${jobColumns()}
), ledger AS (
  INSERT INTO credit_ledger (account_id, job_id, kind, amount)
  SELECT job.account_id, job.id, entry.kind, entry.amount
  FROM job CROSS JOIN LATERAL (VALUES ('release'::"LedgerKind", job.credits_reserved), ('charge'::"LedgerKind", $4::int)) AS entry(kind, amount)
  WHERE entry.amount > 0
), account AS (
  UPDATE accounts SET balance = accounts.balance - $4, reserved = accounts.reserved - job.credits_reserved
  FROM job WHERE accounts.id = job.account_id
)
SELECT * FROM job`;

/**
 * Brings a job to its terminal status and settles its credits: the status from the committed
 * counts (CONTRACT.md section 4), the charge from the delivered leads (section 7), the reservation
 * released. A job that is already terminal is left exactly as it is, whoever asks: a late worker, a
 * retry, a cancel racing the last page. With a `basis` (the worker knows its job) the common case
 * is one statement; a stale basis costs a read and another try.
 */
export async function settleJob(db: Database, jobId: string, outcome: JobOutcome, basis?: SettlementBasis): Promise<Settlement | null> {
  let known: SettlementBasis | JobRecord | null | undefined = basis;
  for (;;) {
    if (!known) {
      const job = await findJob(db, jobId);
      if (!job) return null;
      if (isTerminal(job.status)) return { job, settled: false };
      known = job;
    }
    const decision = decideTerminal(known.requestedCount, known.deliveredCount, outcome);
    const creditsCharged = chargeFor(known.source, known.deliveredCount);
    const { rows } = await db.sql.query<JobRow>(SETTLE, [jobId, decision.status, decision.stopReason, creditsCharged, known.deliveredCount]);
    if (rows[0]) return { job: jobFromRow(rows[0]), settled: true };
    known = null; // terminal meanwhile, or another page landed: read what is true now
  }
}
