import { chargeFor, decideTerminal, isTerminal, type JobOutcome } from '@leadgen/domain';
import { transaction, type Database } from './client';
import { lockJob, writeTerminal, type JobRecord } from './job-repository';
import { settleCredits } from './ledger-repository';

export interface Settlement {
  job: JobRecord;
  /** false when the job had already reached a terminal status: nothing was changed */
  settled: boolean;
}

/**
 * Brings a job to its terminal status and settles its credits, in one transaction under the
 * job's row lock: the status from the committed counts (CONTRACT.md section 4), the charge from
 * the delivered leads (section 7), the reservation released. A job that is already terminal is
 * left exactly as it is, whoever asks: a late worker, a retry, a cancel racing the last page.
 */
export async function settleJob(db: Database, jobId: string, outcome: JobOutcome): Promise<Settlement | null> {
  return transaction(db, async (tx) => {
    const job = await lockJob(tx, jobId);
    if (!job) return null;
    if (isTerminal(job.status)) return { job, settled: false };
    const decision = decideTerminal(job.requestedCount, job.deliveredCount, outcome);
    const creditsCharged = chargeFor(job.source, job.deliveredCount);
    const written = await writeTerminal(tx, jobId, { ...decision, creditsCharged });
    if (!written) return { job, settled: false };
    await settleCredits(tx, job.accountId, jobId, job.creditsReserved, creditsCharged);
    const settledJob = await lockJob(tx, jobId);
    return { job: settledJob!, settled: true };
  });
}
