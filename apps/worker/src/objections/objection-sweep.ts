import {
  claimConfirmedObjection,
  eraseSubject,
  markObjectionApplied,
  purgeExpiredObjections,
  purgeOldObjectionNotices,
  releaseObjectionClaim,
  recordAuditEvent,
  recordObjectionNotices,
  subjectHolders,
  suppressGlobally,
  type Database,
  type ObjectionRecord,
} from '@leadgen/db';
import { logger } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import type { JobEventPublisher, WebhookProducer } from '@leadgen/queue';
import { startPeriodicSweep, type PeriodicSweep } from '../periodic-sweep';

/**
 * How often each delivering worker looks for confirmed objections: the issue's bound is a minute from the
 * proof to the buyers' notice, and an apply takes seconds (an erasure waits one out), so 5 s leaves most of it.
 */
export const OBJECTION_SWEEP_MS = 5_000;
/** How long one worker holds an objection it applies; past it (the worker died) another takes it again. */
const APPLY_LEASE_MS = 5 * 60_000;
/** After a failed apply (a lost connection, a timeout), the objection is tried again this soon, within the minute. */
const RETRY_AFTER_FAILURE_MS = 10_000;
/** How often a worker deletes the unproven objections whose link or token expired, and the notices past their retention. */
const PURGE_EVERY_MS = 3_600_000;

export interface ObjectionSweepDependencies {
  db: Database;
  webhooks: WebhookProducer;
  events: JobEventPublisher;
  noticeDays: number;
  /** OBJECTION_NOTICE_RETENTION_DAYS: notices older than this leave the accounts' feeds */
  noticeRetentionDays: number;
}

/**
 * Applies one confirmed objection (decision 042), in an order a crash can resume: the subject joins the
 * global list and the commits in flight are waited for (nothing new holds it from then on); the accounts
 * whose recent jobs hold it are found and their notices and subject.objected deliveries recorded in one
 * transaction (an account noticed before is not noticed twice); only then are the stored copies erased,
 * so a retry after a crash still finds who must be told, and the notices sent once they are gone. Audit and metrics last.
 */
export async function applyObjection(deps: ObjectionSweepDependencies, objection: ObjectionRecord): Promise<void> {
  const subject = { kind: objection.kind, value: objection.value };
  await suppressGlobally(deps.db, subject);
  const since = new Date(Date.now() - deps.noticeDays * 86_400_000);
  const holders = await subjectHolders(deps.db, subject, since);
  const { notices, deliveryIds } = await recordObjectionNotices(deps.db, objection, holders);
  const erasure = await eraseSubject(deps.db, subject);
  const told = await Promise.allSettled(erasure.jobIds.map((jobId) => deps.events.publishLeadsErased(jobId)));
  if (told.some((t) => t.status === 'rejected'))
    logger.warn('objection: API processes not told of some erased jobs (the erasure epoch still holds)');
  // Sent once the copies are gone, so a buyer who reads its leads on the notice no longer finds the subject.
  // The outbox sweep sends what Redis does not take now.
  await deps.webhooks
    .enqueue(deliveryIds)
    .catch((error: Error) => logger.warn('objection notices not enqueued: the outbox sweep will send them', { error: error.message }));
  // Each account's trail says it was told and how much went, never who; the service's own trail says what was applied.
  for (const notice of notices) {
    await recordAuditEvent(deps.db, {
      accountId: notice.accountId,
      action: 'subject.objected',
      summary: { objectionId: objection.id, kind: objection.kind, jobs: notice.jobIds.length },
      actor: 'service',
      requestId: null,
    });
  }
  await recordAuditEvent(deps.db, {
    accountId: null,
    action: 'objection.applied',
    summary: {
      objectionId: objection.id,
      kind: objection.kind,
      proof: objection.confirmedBy,
      leads: erasure.leads,
      accounts: holders.length,
    },
    actor: 'service',
    requestId: null,
  });
  await markObjectionApplied(deps.db, objection.id, { leadsErased: erasure.leads, accountsNoticed: holders.length });
  metrics.objectionNotices.inc(notices.length);
  logger.info('objection applied', { objectionId: objection.id, kind: objection.kind, leads: erasure.leads, accounts: holders.length });
}

/** Every worker that delivers webhooks (it holds the secrets' key) applies the confirmed objections, one at a time. */
export function startObjectionSweep(deps: ObjectionSweepDependencies, periodMs = OBJECTION_SWEEP_MS): PeriodicSweep {
  let purgedAt = 0;
  return startPeriodicSweep('objection sweep', periodMs, async () => {
    if (Date.now() - purgedAt > PURGE_EVERY_MS) {
      purgedAt = Date.now();
      const purged = await purgeExpiredObjections(deps.db);
      if (purged > 0) logger.info('expired objections deleted', { purged });
      const notices = await purgeOldObjectionNotices(deps.db, deps.noticeRetentionDays);
      if (notices > 0) logger.info('objection notices past their retention deleted', { notices, days: deps.noticeRetentionDays });
    }
    for (;;) {
      const objection = await claimConfirmedObjection(deps.db, APPLY_LEASE_MS);
      if (!objection) return;
      try {
        await applyObjection(deps, objection);
      } catch (error) {
        logger.warn('objection not applied: tried again shortly', { objectionId: objection.id, error: (error as Error).message });
        await releaseObjectionClaim(deps.db, objection.id, RETRY_AFTER_FAILURE_MS).catch(() => undefined);
        return;
      }
    }
  });
}
