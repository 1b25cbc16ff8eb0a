import { topUpTestCredits, type Database } from '@leadgen/db';
import { TEST_ACCOUNT_CREDITS } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { claimPeriodicTask, type LeadQueues } from '@leadgen/queue';
import { startPeriodicSweep, type PeriodicSweep } from './periodic-sweep';

/** How often the fleet looks for test accounts due a top-up; each is due a day after its last grant. */
export const TEST_CREDITS_SWEEP_MS = 3_600_000;
export const TEST_CREDITS_EVERY_MS = 86_400_000;

/**
 * Test credits come back (decision 036): once per period fleet-wide, every test account (acc_test_…) whose last
 * grant is more than `everyMs` old and whose balance is under TEST_ACCOUNT_CREDITS gets it restored, with a grant
 * row in its ledger (topUpTestCredits). A consumer testing in bulk never runs out, and sees each day's top-up in
 * its test ledger.
 */
export function startTestCreditsSweep(
  db: Database,
  queues: LeadQueues,
  options: { periodMs?: number; everyMs?: number } = {},
): PeriodicSweep {
  const { periodMs = TEST_CREDITS_SWEEP_MS, everyMs = TEST_CREDITS_EVERY_MS } = options;
  return startPeriodicSweep('test credits sweep', periodMs, async () => {
    if (!(await claimPeriodicTask(queues.connection, queues.keys, 'test-credits', periodMs))) return;
    const topped = await topUpTestCredits(db, { allowance: TEST_ACCOUNT_CREDITS, grantedBefore: new Date(Date.now() - everyMs) });
    if (topped.length > 0)
      logger.info('test credits restored', { accounts: topped.length, credits: topped.reduce((sum, t) => sum + t.amount, 0) });
  });
}
