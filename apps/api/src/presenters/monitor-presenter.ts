import type { MonitorRecord, MonitorRunRecord } from '@leadgen/db';
import { batchPath, pollUrl } from '@leadgen/domain';

/**
 * The monitor body (docs/api.md, "Monitors"): what it runs (`request`, or a batch monitor's `batch`; the other is
 * null), when next, how its last run went, and why it is paused.
 */
export function monitorBody(monitor: MonitorRecord) {
  return {
    monitorId: monitor.id,
    name: monitor.name,
    request: monitor.request,
    batch: monitor.batch,
    schedule: monitor.schedule,
    webhookUrl: monitor.webhookUrl,
    maxCreditsPerRun: monitor.maxCreditsPerRun,
    enabled: monitor.enabled,
    pausedReason: monitor.enabled ? null : monitor.pausedReason,
    nextRunAt: monitor.nextRunAt?.toISOString() ?? null,
    lastRun: monitor.lastRun
      ? {
          runId: monitor.lastRun.runId,
          jobId: monitor.lastRun.jobId,
          batchId: monitor.lastRun.batchId,
          status: monitor.lastRun.status,
          deliveredCount: monitor.lastRun.deliveredCount,
          skipReason: monitor.lastRun.skipReason,
          scheduledFor: monitor.lastRun.scheduledFor?.toISOString() ?? null,
          createdAt: monitor.lastRun.createdAt.toISOString(),
        }
      : null,
    createdAt: monitor.createdAt.toISOString(),
    updatedAt: monitor.updatedAt.toISOString(),
  };
}

/** One run of a monitor: a tick (scheduledFor) or a run asked for; its job's (or batch's) counts, or why it made none. */
export function monitorRunBody(run: MonitorRunRecord, publicBaseUrl: string | null) {
  return {
    runId: run.id,
    monitorId: run.monitorId,
    kind: run.kind,
    scheduledFor: run.scheduledFor?.toISOString() ?? null,
    createdAt: run.createdAt.toISOString(),
    skipReason: run.skipReason,
    job: run.job
      ? {
          jobId: run.job.id,
          pollUrl: pollUrl(publicBaseUrl, run.job.id),
          status: run.job.status,
          requestedCount: run.job.requestedCount,
          deliveredCount: run.job.deliveredCount,
          skippedAlreadyDelivered: run.job.skippedAlreadyDelivered,
          creditsCharged: run.job.creditsCharged,
          finishedAt: run.job.finishedAt?.toISOString() ?? null,
        }
      : null,
    batch: run.batch
      ? {
          batchId: run.batch.id,
          pollUrl: `${publicBaseUrl ?? ''}${batchPath(run.batch.id)}`,
          status: run.batch.status,
          childCount: run.batch.childCount,
          requestedCount: run.batch.requestedCount,
          deliveredCount: run.batch.deliveredCount,
          skippedAlreadyDelivered: run.batch.skippedAlreadyDelivered,
          creditsCharged: run.batch.creditsCharged,
          finishedAt: run.batch.finishedAt?.toISOString() ?? null,
        }
      : null,
  };
}
