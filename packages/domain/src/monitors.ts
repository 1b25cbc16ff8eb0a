import { AppError } from './errors';
import type { GenerationRequest } from './generation-request';
import { firstRunAfter, type MonitorSchedule } from './monitor-schedule';

// Monitors (docs/decisions/022-monitors.md): a generation request (or a batch of them) run on a schedule,
// each run an ordinary job (or batch) with excludeDelivered forced, so a run delivers and bills only what is new.

/** Why a monitor is not running: its owner or an operator paused it, or the service did. */
export const MONITOR_PAUSE_REASONS = ['owner', 'operator', 'insufficient_credits', 'consecutive_failures'] as const;
export type MonitorPauseReason = (typeof MONITOR_PAUSE_REASONS)[number];

/** A tick of the schedule, or a run the owner asked for. */
export type MonitorRunKind = 'scheduled' | 'manual';

/** Why a scheduled tick made no job: the previous run was still going. */
export type MonitorSkipReason = 'overlap';

/** What a batch monitor runs: each run is a batch of these requests (decision 021), excludeDelivered forced. */
export interface MonitorBatch {
  requests: GenerationRequest[];
}

export interface MonitorFacts {
  id: string;
  accountId: string;
  name: string;
  /** the request each run submits; null for a batch monitor (exactly one of request and batch is set) */
  request: GenerationRequest | null;
  /** the requests each run submits as one batch; null for a monitor of one request */
  batch: MonitorBatch | null;
  schedule: MonitorSchedule;
  webhookUrl: string | null;
  maxCreditsPerRun: number | null;
  enabled: boolean;
  pausedReason: MonitorPauseReason | null;
  nextRunAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The request a run submits: the monitor's, with excludeDelivered forced (a run delivers and bills
 * only leads the account never received) and the monitor's webhookUrl as the job's own target.
 */
export function runRequest(monitor: { request: GenerationRequest; webhookUrl: string | null }): GenerationRequest {
  const { webhookUrl, ...request } = monitor.request;
  const target = monitor.webhookUrl ?? webhookUrl;
  return { ...request, excludeDelivered: true, ...(target ? { webhookUrl: target } : {}) };
}

/**
 * The children of a batch monitor's run: its requests with excludeDelivered forced. A child has no webhookUrl of
 * its own: the batch's terminal event goes to the monitor's webhookUrl (the batch's), as a job run's does.
 */
export function runBatchRequests(batch: MonitorBatch): GenerationRequest[] {
  return batch.requests.map((child) => {
    const { webhookUrl: _ignored, ...request } = child;
    return { ...request, excludeDelivered: true };
  });
}

export const monitorErrors = {
  notFound: () => new AppError(404, 'monitor_not_found', 'Monitor not found', 'No monitor with this id exists for your account'),
  limit: (max: number) =>
    new AppError(
      409,
      'monitor_limit',
      'Too many monitors',
      `An account has at most ${max} monitors (MONITOR_MAX_PER_ACCOUNT); delete one first`,
      {
        limit: max,
      },
    ),
  /** `{ jobId }` for a job run, `{ batchId }` for a batch monitor's run */
  runInProgress: (run: { jobId: string } | { batchId: string }) =>
    new AppError(
      409,
      'monitor_run_in_progress',
      'A run is still going',
      'The monitor has a run that has not finished; a monitor never runs twice at once',
      run,
    ),
};

/** A change to a monitor's fields (PATCH, or the operator's pause). */
export interface MonitorFieldsChange {
  name?: string;
  /** a new request (a batch monitor becomes a monitor of one request) */
  request?: GenerationRequest | null;
  /** a new batch (a monitor of one request becomes a batch monitor) */
  batch?: MonitorBatch | null;
  schedule?: MonitorSchedule;
  webhookUrl?: string | null;
  maxCreditsPerRun?: number | null;
  enabled?: boolean;
}

/**
 * What a change does to the schedule, decided from the monitor as stored: a pause clears the next run (and says
 * who paused), a resume or a new schedule sets it to the schedule's next time from `now`, anything else keeps it.
 */
export function decideMonitorChange(
  current: MonitorFacts,
  change: MonitorFieldsChange,
  now: Date,
  pausedBy: MonitorPauseReason,
): MonitorFieldsChange & { nextRunAt: Date | null; pausedReason: MonitorPauseReason | null; resumed: boolean } {
  // A monitor runs a request or a batch: sending one replaces the other.
  if (change.request) change = { ...change, batch: null };
  else if (change.batch) change = { ...change, request: null };
  const enabled = change.enabled ?? current.enabled;
  const resumed = change.enabled === true && !current.enabled;
  if (!enabled) {
    const pausedReason = change.enabled === false && current.enabled ? pausedBy : current.pausedReason;
    return { ...change, nextRunAt: null, pausedReason, resumed: false };
  }
  if (resumed || change.schedule) {
    return { ...change, nextRunAt: firstRunAfter(change.schedule ?? current.schedule, now), pausedReason: null, resumed };
  }
  return { ...change, nextRunAt: current.nextRunAt, pausedReason: current.pausedReason, resumed: false };
}
