import { chargeFor, decideTerminal, isTerminal, JOB_EVENT_OF, type JobOutcome, type Source } from '@leadgen/domain';
import type { Database } from './client';
import { findJob, jobColumns, jobFromRow, type JobRecord, type JobRow } from './jobs';

export interface Settlement {
  job: JobRecord;
  /** false when the job had already reached a terminal status: nothing was changed */
  settled: boolean;
  /** the webhook deliveries its terminal event raised (decision 016), to enqueue now; empty when none or not settled here */
  webhookDeliveryIds: string[];
  /** the account's held jobs of the source released into the place in its share the job freed (decision 020), oldest first, to enqueue now */
  releasedJobIds: string[];
}

/** What the settling side believes about the job; checked by the statement, re-read when stale. */
export interface SettlementBasis {
  source: Source;
  requestedCount: number;
  deliveredCount: number;
  /** an area search's tile (its request has `tile`): charged per item, without a job's minimum (decision 039) */
  areaTile?: boolean;
}

// One statement (prisma/functions/settle_job.sql): the compare-and-set that makes a
// terminal status final (it matches only a job that is not terminal and still has the delivered
// count the decision was made from), the ledger's release and charge rows (unique per job and kind:
// a second settlement is impossible whatever code runs), the account's counters, and the outbox
// rows of the job's webhook event, named here (one probe of an index when the account has no endpoints),
// and the release of the account's next held jobs (with a share; NULL releases none).
const SETTLE = `SELECT ${jobColumns('(s.job)')}, s.webhook_deliveries, s.released_jobs FROM settle_job($1, $2, $3, $4, $5, $6, $7) s`;

/**
 * Brings a job to its terminal status and settles its credits: the status from the committed
 * counts (docs/api.md#job-statuses), the charge from the delivered leads (docs/api.md#billing), the reservation
 * released. A job that is already terminal is left exactly as it is, whoever asks: a late worker, a
 * retry, a cancel racing the last page. With a `basis` (the worker knows its job) the common case
 * is one statement; a stale basis costs a read and another try. With a `share`, the same statement releases
 * the account's next held jobs of the source (decision 020); without, none (the worker's sweep will). The
 * announcements that follow are @leadgen/commands' settleJob.
 */
export async function recordSettlement(
  db: Database,
  jobId: string,
  outcome: JobOutcome,
  basis?: SettlementBasis,
  share?: number,
): Promise<Settlement | null> {
  let known: SettlementBasis | JobRecord | null | undefined = basis;
  for (;;) {
    if (!known) {
      const job = await findJob(db, jobId);
      if (!job) return null;
      if (isTerminal(job.status)) return { job, settled: false, webhookDeliveryIds: [], releasedJobIds: [] };
      known = job;
    }
    const decision = decideTerminal(known.requestedCount, known.deliveredCount, outcome);
    const areaTile = 'request' in known ? known.request.tile !== undefined : known.areaTile === true;
    const creditsCharged = chargeFor(known.source, known.deliveredCount, { areaTile });
    const { rows } = await db.sql.query<JobRow & { webhook_deliveries: string[]; released_jobs: string[] }>(SETTLE, [
      jobId,
      decision.status,
      decision.stopReason,
      creditsCharged,
      known.deliveredCount,
      JOB_EVENT_OF[decision.status],
      share ?? null,
    ]);
    const row = rows[0];
    if (row) return { job: jobFromRow(row), settled: true, webhookDeliveryIds: row.webhook_deliveries, releasedJobIds: row.released_jobs };
    known = null; // terminal meanwhile, or another page landed: read what is true now
  }
}
