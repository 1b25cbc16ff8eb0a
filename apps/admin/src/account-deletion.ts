import {
  deleteAccount,
  findTestAccountId,
  openJobsOf,
  OPERATOR,
  recordAuditEvent,
  revokeAccountKeys,
  type Database,
  type DeletedAccountFigures,
} from '@leadgen/db';
import { cancelJob } from '@leadgen/commands';
import type { Services } from './commands';

// A job the account opened just before its keys went (a request already past authentication) is found by the
// next round: the cancels and the deletion are tried again this many times before giving up.
const ROUNDS = 5;

export type AccountDeletionResult =
  | { kind: 'not_found' }
  | { kind: 'open_jobs'; jobIds: string[] }
  | { kind: 'deleted'; figures: DeletedAccountFigures; cancelled: string[]; keysRefusedEverywhere: boolean };

/**
 * `admin account:delete`: the account's keys are refused first (on every API process, through the key
 * epoch), so nothing new starts; its open jobs are cancelled as its owner's DELETE would (charged for what they
 * delivered); then the account and all it owns go in bounded batches (deleteAccount), the ledger last, after the
 * account row; the audit trail keeps that it happened, with counts and credit totals. A deletion that stopped once
 * the account row was gone is carried on to its end by the next run, and recorded then.
 */
export async function deleteAccountEverywhere(db: Database, services: Services, accountId: string): Promise<AccountDeletionResult> {
  // Its test account first (decision 036), the same way: its test keys refused, its open test jobs cancelled.
  const testAccountId = await findTestAccountId(db, accountId);
  if (testAccountId) {
    const test = await deleteAccountEverywhere(db, services, testAccountId);
    if (test.kind === 'open_jobs') return test;
  }
  const revoked = await revokeAccountKeys(db, accountId);
  if (!revoked) {
    // No account row: none, or a deletion that stopped once it was gone, whose ledger this carries on with.
    const resumed = await deleteAccount(db, accountId);
    if (resumed.outcome !== 'deleted') return { kind: 'not_found' };
    await recordAuditEvent(db, { accountId, action: 'account.deleted', summary: { ...resumed.figures, jobsCancelled: 0 }, ...OPERATOR });
    return { kind: 'deleted', figures: resumed.figures, cancelled: [], keysRefusedEverywhere: true };
  }
  const keysRefusedEverywhere = await services.announceKeyEpoch(accountId, revoked.keyEpoch).then(
    () => true,
    () => false,
  );
  const cancelled: string[] = [];
  let open: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    open = await openJobsOf(db, accountId);
    if (open.length > 0) {
      const producer = services.producer();
      // A connection made a moment ago: the first message must not be refused only because it is still connecting.
      await producer.waitUntilReady(2000).catch(() => undefined);
      for (const jobId of open) {
        // PostgreSQL has it CANCELLED either way; a fleet Redis did not tell stops at the job's next page commit.
        const cancellation = await cancelJob(await services.lifecycle(), jobId, null, { releaseNext: false });
        if (cancellation.kind === 'cancelled') cancelled.push(jobId);
      }
    }
    const deletion = await deleteAccount(db, accountId);
    if (deletion.outcome === 'not_found') return { kind: 'not_found' };
    if (deletion.outcome === 'deleted') {
      await recordAuditEvent(db, {
        accountId,
        action: 'account.deleted',
        summary: { ...deletion.figures, jobsCancelled: cancelled.length },
        ...OPERATOR,
      });
      return { kind: 'deleted', figures: deletion.figures, cancelled, keysRefusedEverywhere };
    }
  }
  return { kind: 'open_jobs', jobIds: open };
}
