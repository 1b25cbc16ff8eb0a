import { startManualRun } from '@leadgen/commands';
import {
  changeMonitor,
  deleteMonitor as markMonitorDeleted,
  findBatch,
  findJob,
  findMonitor,
  insertMonitor,
  listMonitorRuns,
  listMonitors as listAccountMonitors,
  monitorEverExisted,
  type BatchRecord,
  type JobRecord,
  type MonitorRecord,
  type MonitorRunRecord,
} from '@leadgen/db';
import {
  checkMonitorCreditCap,
  decideMonitorChange,
  errors,
  firstRunAfter,
  monitorErrors,
  newId,
  type MonitorFieldsChange,
  type MonitorPauseReason,
} from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import type { ApiDependencies } from '../dependencies';

/** A monitor as created or changed (only the fields sent, for a change): the domain's fields of a monitor. */
export type MonitorInput = MonitorFieldsChange;

// Monitors (decision 022). PostgreSQL is changed first and decides; the alarm follows it. An alarm
// that cannot be set or removed is only logged: a stale one rings for a due time PostgreSQL has moved
// and does nothing, a missing one is set again by the workers' sweep.

async function moveAlarm(deps: ApiDependencies, monitorId: string, from: Date | null, to: Date | null): Promise<void> {
  if (from?.getTime() === to?.getTime()) return;
  try {
    if (from) await deps.alarms.cancel(monitorId, from);
    if (to) await deps.alarms.set(monitorId, to);
  } catch (error) {
    logger.warn('monitor alarm not moved; the sweep sets it from PostgreSQL', { monitorId, error: (error as Error).message });
  }
}

export async function createMonitor(
  deps: ApiDependencies,
  accountId: string,
  input: Required<Pick<MonitorInput, 'name' | 'schedule'>> & MonitorInput,
) {
  const monitor = {
    id: newId.monitor(),
    accountId,
    name: input.name,
    // exactly one of the two (the schema's xor)
    request: input.request ?? null,
    batch: input.batch ?? null,
    schedule: input.schedule,
    webhookUrl: input.webhookUrl ?? null,
    maxCreditsPerRun: input.maxCreditsPerRun ?? null,
    enabled: input.enabled ?? true,
    nextRunAt: input.enabled === false ? null : firstRunAfter(input.schedule, new Date()),
  };
  checkMonitorCreditCap(monitor);
  const created = await insertMonitor(deps.db, monitor, deps.config.monitors.maxPerAccount);
  if (created === 'limit') throw monitorErrors.limit(deps.config.monitors.maxPerAccount);
  await moveAlarm(deps, created.id, null, created.nextRunAt);
  return created;
}

export async function getMonitor(deps: ApiDependencies, accountId: string, id: string): Promise<MonitorRecord> {
  const monitor = await findMonitor(deps.db, accountId, id);
  if (!monitor) throw monitorErrors.notFound();
  return monitor;
}

export const listMonitors = (deps: ApiDependencies, accountId: string) => listAccountMonitors(deps.db.reads, accountId);

/**
 * PATCH: the change is applied under the monitor's row lock. A pause clears the next run; a resume or a new
 * schedule sets it to the schedule's next time from now, at once (the alarm moves with it).
 */
export async function updateMonitor(
  deps: ApiDependencies,
  accountId: string | null,
  id: string,
  change: MonitorInput,
  pausedBy: MonitorPauseReason = 'owner',
): Promise<MonitorRecord> {
  const now = new Date();
  const moved = await changeMonitor(deps.db, accountId, id, (current) => {
    const decided = decideMonitorChange(current, change, now, pausedBy);
    checkMonitorCreditCap({ ...current, ...decided });
    return decided;
  });
  if (!moved) throw monitorErrors.notFound();
  await moveAlarm(deps, id, moved.previousNextRunAt, moved.monitor.nextRunAt);
  return moved.monitor;
}

/** DELETE: the monitor is gone for the API; its alarm is removed; its runs (jobs) stay readable. */
export async function deleteMonitor(deps: ApiDependencies, accountId: string, id: string): Promise<void> {
  const deleted = await markMonitorDeleted(deps.db, accountId, id);
  if (!deleted) throw monitorErrors.notFound();
  await moveAlarm(deps, id, deleted.previousNextRunAt, null);
}

export type RunNowResult = ({ job: JobRecord; batch: null } | { job: null; batch: BatchRecord }) & { replayed: boolean };

/**
 * POST /monitors/{id}/run: one run now through the generate path (a batch monitor's through the batches path),
 * idempotent per Idempotency-Key.
 */
export async function runMonitorNow(deps: ApiDependencies, accountId: string, id: string, idempotencyKey: string): Promise<RunNowResult> {
  const outcome = await startManualRun(deps.lifecycle, accountId, id, idempotencyKey);
  switch (outcome.kind) {
    case 'not_found':
      throw monitorErrors.notFound();
    case 'key_reused':
      throw errors.idempotencyKeyReused();
    case 'in_progress':
      throw monitorErrors.runInProgress(outcome.jobId !== null ? { jobId: outcome.jobId } : { batchId: outcome.batchId });
    case 'insufficient_credits':
      throw errors.insufficientCredits(outcome.required, outcome.available);
    case 'replay':
    case 'created': {
      const replayed = outcome.kind === 'replay';
      return outcome.jobId !== null
        ? { job: await readRunJob(deps, outcome.jobId), batch: null, replayed }
        : { job: null, batch: await readRunBatch(deps, accountId, outcome.batchId), replayed };
    }
  }
}

async function readRunBatch(deps: ApiDependencies, accountId: string, batchId: string): Promise<BatchRecord> {
  const batch = await findBatch(deps.db, batchId, accountId);
  if (!batch) throw new Error(`monitor run ${batchId} vanished after creation`);
  return batch;
}

async function readRunJob(deps: ApiDependencies, jobId: string): Promise<JobRecord> {
  const job = await findJob(deps.db, jobId);
  if (!job) throw new Error(`monitor run ${jobId} vanished after creation`);
  return job;
}

/** GET /monitors/{id}/runs: a deleted monitor's runs too (they stay readable); another account's monitor is 404. */
export async function listRuns(
  deps: ApiDependencies,
  accountId: string,
  id: string,
  page: { limit: number; before?: { createdAt: Date; id: string } },
): Promise<{ items: MonitorRunRecord[]; next: { createdAt: Date; id: string } | null }> {
  if (!(await monitorEverExisted(deps.db, accountId, id))) throw monitorErrors.notFound();
  return listMonitorRuns(deps.db.reads, id, page);
}
