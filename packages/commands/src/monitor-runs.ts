import { createHash } from 'node:crypto';
import {
  batchRun,
  findKeyedRun,
  findOpenRun,
  inTransaction,
  insertBatchWithin,
  insertJobWithin,
  insertMonitorRun,
  jobRun,
  lastRunsFailed,
  lockMonitor,
  moveDueTime,
  pauseMonitorForService,
  tagRun,
  type Queryable,
  type RunRef,
} from '@leadgen/db';
import {
  newId,
  newWebhookSecret,
  nextRunAfter,
  reservationFor,
  runBatchRequests,
  runRequest,
  type MonitorFacts,
  type MonitorPauseReason,
} from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { afterCommit, type Committed, type JobOfSource } from './after-commit';
import type { Lifecycle } from './lifecycle';

// A monitor's runs (docs/decisions/022-monitors.md). A tick runs under the monitor's row lock and only when the
// stored due time has come: it creates the run (its job through create_job, as a generate; a batch monitor's batch
// through create_batch, as POST /leads/batches), tags it, records the tick under its unique key (monitor, due
// time) and moves the due time, all in one transaction; then the after-commit step tells what it released. Two
// workers, a retried alarm or an alarm restored from a sweep therefore find the due time moved and do nothing;
// were the lock ever bypassed, the unique key rolls the second run back.

// Idempotency keys clients send are printable ASCII; a unit separator cannot be one of them.
const SERVICE_KEY = '\u001f';

export type TickOutcome =
  /** not due (yet), paused or deleted: nothing written; `nextRunAt` is when an alarm should ring, if ever */
  | { kind: 'not_due'; nextRunAt: Date | null }
  /** the previous run is still going: the tick is recorded as skipped */
  | { kind: 'skipped'; runId: string; nextRunAt: Date }
  /** the service paused the monitor (its monitor.paused deliveries are enqueued) */
  | { kind: 'paused'; reason: MonitorPauseReason }
  /** the run's job (`held`: at its account's share) or a batch monitor's batch */
  | ({ kind: 'created'; runId: string; nextRunAt: Date } & RunRef);

export type ManualRunOutcome =
  | { kind: 'not_found' }
  /** the key was used with this monitor before: that run's job or batch */
  | ({ kind: 'replay' } & RunRef)
  /** the key was used for something else */
  | { kind: 'key_reused' }
  | ({ kind: 'in_progress' } & RunRef)
  | { kind: 'insufficient_credits'; required: number; available: number }
  | ({ kind: 'created'; runId: string } & RunRef);

type RunCreation =
  | { kind: 'created'; run: RunRef; committed: Committed }
  | { kind: 'bound'; run: RunRef; fingerprint: string }
  | { kind: 'insufficient_credits'; required: number; available: number };

/**
 * Creates the monitor's run on the transaction's client, as a generate (its request, excludeDelivered forced) or a
 * batch monitor's as POST /leads/batches (maxCreditsPerRun its maxCredits, its webhookUrl the batch's), and tags it.
 * Null when the key vanished between its conflict and its read. `committed`: what the after-commit step tells.
 */
async function createRun(
  client: Queryable,
  lc: Lifecycle,
  monitor: MonitorFacts,
  key: string,
  fingerprint: string,
): Promise<RunCreation | null> {
  const bound = { accountId: monitor.accountId, idempotencyKey: key, fingerprint, idempotencyTtlHours: lc.idempotencyTtlHours };
  let creation: RunCreation | null;
  if (monitor.batch) {
    const batchId = newId.batch();
    const children = runBatchRequests(monitor.batch).map((request) => ({
      jobId: newId.job(),
      resultSetId: newId.resultSet(),
      request,
      reserve: reservationFor(request.source, request.maxResults),
    }));
    const inserted = await insertBatchWithin(client, lc.db, {
      ...bound,
      batchId,
      name: monitor.name,
      excludeDelivered: true,
      maxCredits: monitor.maxCreditsPerRun,
      webhookUrl: monitor.webhookUrl,
      children,
      webhookSecretCandidate: monitor.webhookUrl ? newWebhookSecret() : undefined,
    });
    if (!inserted) return null;
    const created = children.map((child): JobOfSource => ({ jobId: child.jobId, source: child.request.source }));
    creation =
      inserted.kind === 'created'
        ? {
            kind: 'created',
            run: batchRun(batchId),
            committed: { accountId: monitor.accountId, created, releaseCreated: true, batch: true },
          }
        : inserted.kind === 'bound'
          ? { kind: 'bound', run: batchRun(inserted.batchId), fingerprint: inserted.fingerprint }
          : inserted;
  } else if (monitor.request) {
    const request = runRequest({ ...monitor, request: monitor.request });
    const jobId = newId.job();
    const required = reservationFor(request.source, request.maxResults);
    const inserted = await insertJobWithin(client, lc.db, {
      ...bound,
      jobId,
      resultSetId: newId.resultSet(),
      request,
      creditsReserved: required,
      webhookSecretCandidate: request.webhookUrl ? newWebhookSecret() : undefined,
      // A run is held while its account is at its share for the source, as a generate is.
      share: lc.share,
    });
    if (!inserted) return null;
    const { source } = request;
    creation =
      inserted.kind === 'created'
        ? {
            kind: 'created',
            run: jobRun(jobId),
            committed: {
              accountId: monitor.accountId,
              created: [{ jobId, source }],
              released: inserted.released.map((id) => ({ jobId: id, source })),
            },
          }
        : inserted.kind === 'bound'
          ? { kind: 'bound', run: jobRun(inserted.jobId), fingerprint: inserted.fingerprint }
          : { kind: 'insufficient_credits', required, available: inserted.available };
  } else throw new Error(`monitor ${monitor.id} has neither a request nor a batch`);
  if (creation.kind === 'created') await tagRun(client, monitor.id, creation.run);
  return creation;
}

/** After the commit: the run's released jobs enqueued (a batch's children released), the monitor.paused deliveries, the count. */
async function tell(lc: Lifecycle, committed: Committed, what: { monitorId: string }): Promise<void> {
  const untold = await afterCommit(lc, committed);
  if (untold.length > 0) logger.warn('monitor run: not all told; the sweeps will make up for it', { ...what, untold });
}

/** One tick of a monitor's schedule at `now` (the alarm rang, or the sweep found it due). */
export async function tickMonitor(lc: Lifecycle, monitorId: string, now: Date, pauseAfterFailures: number): Promise<TickOutcome> {
  const { outcome, committed } = await inTransaction(lc.db, async (client): Promise<{ outcome: TickOutcome; committed?: Committed }> => {
    const locked = await lockMonitor(client, monitorId, null);
    const dueAt = locked?.monitor.nextRunAt;
    if (!locked || locked.deleted || !locked.monitor.enabled || !dueAt) return { outcome: { kind: 'not_due', nextRunAt: null } };
    if (dueAt.getTime() > now.getTime()) return { outcome: { kind: 'not_due', nextRunAt: dueAt } };
    const { monitor } = locked;
    // Ticks missed while nobody was there collapse into this one: the next lies after now.
    const nextRunAt = nextRunAfter(monitor.schedule, dueAt, now);
    // This tick's run row: what it made (a job or a batch), or why it made none.
    const recordTick = async (run: RunRef | null, skipReason: string | null = null) => {
      const id = newId.monitorRun();
      await insertMonitorRun(client, { id, monitorId, kind: 'scheduled', scheduledFor: dueAt, run, skipReason });
      return id;
    };
    const pause = async (reason: MonitorPauseReason): Promise<{ outcome: TickOutcome; committed: Committed }> => {
      await recordTick(null, reason);
      const webhookDeliveryIds = await pauseMonitorForService(client, lc.db, monitor, reason, now);
      return {
        outcome: { kind: 'paused', reason },
        committed: { accountId: monitor.accountId, webhookDeliveryIds, monitorRun: { kind: 'scheduled', outcome: `paused_${reason}` } },
      };
    };

    if (await findOpenRun(client, monitorId)) {
      const runId = await recordTick(null, 'overlap');
      await moveDueTime(client, monitorId, nextRunAt);
      return {
        outcome: { kind: 'skipped', runId, nextRunAt },
        committed: { accountId: monitor.accountId, monitorRun: { kind: 'scheduled', outcome: 'skipped_overlap' } },
      };
    }
    if (await lastRunsFailed(client, monitorId, locked.failuresSince, pauseAfterFailures)) return pause('consecutive_failures');
    // The tick's own key: the generate (or batches) path's idempotency binds it once, as the unique run row does.
    const key = `${SERVICE_KEY}monitor:${monitorId}:${dueAt.toISOString()}`;
    const creation = await createRun(client, lc, monitor, key, createHash('sha256').update(key).digest('hex'));
    if (!creation || creation.kind === 'bound') {
      // The tick's key is bound: this tick made its run already. Only the due time is left to move.
      await moveDueTime(client, monitorId, nextRunAt);
      return { outcome: { kind: 'not_due', nextRunAt } };
    }
    if (creation.kind === 'insufficient_credits') return pause('insufficient_credits');
    const runId = await recordTick(creation.run);
    await moveDueTime(client, monitorId, nextRunAt);
    return {
      outcome: { kind: 'created', runId, nextRunAt, ...creation.run },
      committed: { ...creation.committed, monitorRun: { kind: 'scheduled', outcome: 'started' } },
    };
  });
  if (committed) await tell(lc, committed, { monitorId });
  return outcome;
}

/**
 * POST /monitors/{id}/run: one run now, whatever the schedule (a paused monitor too), idempotent per
 * Idempotency-Key. Under the monitor's row lock, so it never overlaps a tick's run; the schedule is not moved.
 * The key binds the run's job (idempotency_keys) or a batch monitor's batch (batches.idempotency_key): both are read.
 */
export async function startManualRun(lc: Lifecycle, accountId: string, monitorId: string, clientKey: string): Promise<ManualRunOutcome> {
  const key = `${SERVICE_KEY}monitor-run:${clientKey}`;
  const fingerprint = createHash('sha256').update(`monitor-run:${monitorId}`).digest('hex');
  const { outcome, committed } = await inTransaction(
    lc.db,
    async (client): Promise<{ outcome: ManualRunOutcome; committed?: Committed }> => {
      const locked = await lockMonitor(client, monitorId, accountId);
      if (!locked || locked.deleted) return { outcome: { kind: 'not_found' } };
      const replayOf = (earlier: { run: RunRef; fingerprint: string }): ManualRunOutcome =>
        earlier.fingerprint === fingerprint ? { kind: 'replay', ...earlier.run } : { kind: 'key_reused' };
      const earlier = await findKeyedRun(client, accountId, key);
      if (earlier) return { outcome: replayOf(earlier) };
      const open = await findOpenRun(client, monitorId);
      if (open) return { outcome: { kind: 'in_progress', ...open } };
      const creation = await createRun(client, lc, locked.monitor, key, fingerprint);
      if (!creation) throw new Error('idempotency key could neither be bound nor read');
      if (creation.kind === 'bound') return { outcome: replayOf(creation) };
      if (creation.kind === 'insufficient_credits') return { outcome: creation };
      const runId = newId.monitorRun();
      await insertMonitorRun(client, { id: runId, monitorId, kind: 'manual', scheduledFor: null, run: creation.run, skipReason: null });
      return {
        outcome: { kind: 'created', runId, ...creation.run },
        committed: { ...creation.committed, monitorRun: { kind: 'manual', outcome: 'started' } },
      };
    },
  );
  if (committed) await tell(lc, committed, { monitorId });
  return outcome;
}
