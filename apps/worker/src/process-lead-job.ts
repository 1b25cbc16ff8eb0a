import type { Config } from '@leadgen/config';
import { announceSettlement, recordTileSearch, settleJob, type Lifecycle } from '@leadgen/commands';
import {
  commitPage,
  findBatchArea,
  findJob,
  openJob,
  recordUpstreamCalls,
  startJob,
  type Database,
  type JobRecord,
  type Settlement,
  type SettlementBasis,
  type StartRefusal,
} from '@leadgen/db';
import { isTerminal, isTestAccountId, type JobOutcome, type ResolvedArea, type Source } from '@leadgen/domain';
import { logger, withLogContext } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import {
  countUpstreamCalls,
  onUpstreamRetry,
  ProviderError,
  type LeadProvider,
  type TileReport,
  type UpstreamRetry,
} from '@leadgen/providers';
import type { AccountTurns } from './account-turns';
import { collectLeads, followBatchCap, uncommittedCalls, type SliceReport } from './lead-pipeline';
import { WaitingError, type Job, type LeadJobHandler, type LeadJobResult, type QueuePayloads } from '@leadgen/queue';

export interface HandlerDependencies {
  config: Config;
  db: Database;
  /** a job's life (@leadgen/commands): its settlement, the release of the account's next held job, the announcements */
  lifecycle: Lifecycle;
  /** fair turns between accounts for this process's event loop (account-turns.ts, decision 050); none when absent */
  turns?: AccountTurns;
}

/** Why a running job was interrupted from outside its provider. */
export class JobInterrupted extends Error {
  constructor(readonly why: 'cancelled' | 'shutdown' | 'timeout') {
    super(`job interrupted: ${why}`);
  }
}

type Start =
  | { kind: 'started'; job: JobRecord }
  /** the start is written with the job's first commit (decision 037): running, the provider, `startedAt` */
  | { kind: 'deferred'; job: JobRecord; startedAt: Date }
  | { kind: 'refused'; job: JobRecord; refusal: StartRefusal }
  | { kind: 'terminal'; job: JobRecord }
  | { kind: 'missing' };

/**
 * One statement in the common case: the row, read (open_job.sql). Its start (queued → running) rides on its first
 * commit unless the entry was taken before (`attemptsStarted` > 1: the first start is recorded at once, so a job
 * whose workers keep dying still ends by its time budget), the job is a batch's child to reserve, or it was never
 * released. The API commits a job before it enqueues it, so a missing row is one whose creation was withdrawn
 * (its enqueue seemed to fail).
 */
async function start(db: Database, jobId: string, provider: string, restarted: boolean): Promise<Start> {
  const startedAt = new Date();
  const opened = await openJob(db, jobId, provider, restarted);
  if (opened?.kind === 'deferred') return { ...opened, startedAt };
  if (opened) return opened;
  const row = await findJob(db, jobId);
  return row ? { kind: 'terminal', job: row } : { kind: 'missing' };
}

/** A batch's child that may not start (its batch's budget or the account cannot cover it, or the batch was cancelled) ends CANCELLED. */
const REFUSAL_OUTCOME: Record<StartRefusal, JobOutcome> = {
  batch_budget_exhausted: { kind: 'budget_exhausted' },
  batch_cancelled: { kind: 'cancelled' },
};

/** The queue entry's return value: the terminal object as PostgreSQL holds it (null while not terminal). */
export function jobResult(job: JobRecord | null | undefined): LeadJobResult | null {
  if (!job || !isTerminal(job.status)) return null;
  return {
    jobId: job.id,
    status: job.status,
    requestedCount: job.requestedCount,
    deliveredCount: job.deliveredCount,
    stopReason: job.stopReason,
    creditsCharged: job.creditsCharged,
    provider: job.provider,
    finishedAt: job.finishedAt?.toISOString() ?? null,
    upstreamCalls: job.upstreamCalls ?? {},
  };
}

/**
 * `testProvider` serves the jobs of test accounts (acc_test_…, decision 036): the sandbox, whatever `provider` is,
 * so a test key never reaches a paid upstream. The account is in the queue entry, so the choice costs nothing.
 */
export function createLeadJobHandler<S extends Source>(
  provider: LeadProvider<S>,
  deps: HandlerDependencies,
  testProvider: LeadProvider<S> = provider,
): LeadJobHandler<S> {
  return (job, token, signal) =>
    withLogContext({ jobId: job.data.jobId, source: provider.source }, async () => {
      // Its account's turn first (decision 050): while the loop is busy and another account is here, one account's
      // jobs beyond WORKER_TURNS_PER_ACCOUNT wait, holding their slot, not the loop.
      const endTurn = deps.turns ? await deps.turns.enter(job.data.accountId, signal) : null;
      try {
        if (signal.aborted) {
          // Cancelled or shut down while it waited: as processLeadJob does for an abort.
          if (signal.reason === 'shutdown') {
            await job.moveToWait(token);
            throw new WaitingError();
          }
          return jobResult(await findJob(deps.db, job.data.jobId));
        }
        return await processLeadJob(isTestAccountId(job.data.accountId) ? testProvider : provider, deps, job, token, signal);
      } finally {
        endTurn?.();
      }
    });
}

async function processLeadJob<S extends Source>(
  provider: LeadProvider<S>,
  deps: HandlerDependencies,
  job: Job<QueuePayloads[S]>,
  token: string,
  bullSignal: AbortSignal,
): Promise<LeadJobResult | null> {
  const { db, config } = deps;
  const jobId = job.data.jobId;
  const started = await start(db, jobId, provider.name, (job.attemptsStarted ?? 0) > 1);
  if (started.kind === 'terminal') return jobResult(started.job);
  if (started.kind === 'refused') {
    logger.info('batch child not started', { refusal: started.refusal });
    return finish(deps, jobId, REFUSAL_OUTCOME[started.refusal], started.job);
  }
  if (started.kind === 'missing') {
    logger.warn('queue entry has no job row: dropped');
    return null;
  }
  const record = started.job;
  // A deferred start (decision 037): written by the first commit, or by the pipeline once START_WRITE_MS have passed.
  const pendingStart = started.kind === 'deferred' ? { provider: provider.name, startedAt: started.startedAt } : null;
  const deadline = (record.startedAt ?? pendingStart?.startedAt ?? new Date()).getTime() + config.worker.jobTimeoutMs;
  const controller = new AbortController();
  // BullMQ aborts its signal for worker.cancelJob (a cancel message) and cancelAllJobs (shutdown).
  const onBullAbort = () => controller.abort(new JobInterrupted(bullSignal.reason === 'shutdown' ? 'shutdown' : 'cancelled'));
  bullSignal.addEventListener('abort', onBullAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new JobInterrupted('timeout')), Math.max(0, deadline - Date.now()));

  // What the settlement is decided from: the counts as the last commit left them.
  const basis: SettlementBasis = {
    source: record.source,
    requestedCount: record.requestedCount,
    deliveredCount: record.deliveredCount,
    areaTile: record.request.tile !== undefined,
  };
  let outcome: JobOutcome;
  const reporter = sliceReporter(job);
  const upstreamCalls = new Map<string, number>();
  // What of upstreamCalls the job row has already (each page commit adds the calls since the one before).
  const committedCalls = new Map<string, number>();
  // An area search's tile (decision 039): its batch's area, for the clipping; what its search listed, for the split.
  const area = record.request.tile !== undefined && record.batchId !== null ? await areaOf(db, record.batchId) : undefined;
  const tile: { report: TileReport | null } = { report: null };
  // What the pipeline's commits did not carry (decision 038), and whether this run settles the job: only then are
  // the filtered leads of pages it did not read to their end counted (a retried job reads them again).
  const leftover = { filtered: 0, cursor: record.cursor };
  let settles = false;
  // The settlement the job's last commit made in its own transaction (commit_slice), when it completed the job.
  const settled: { settlement: Settlement | null; startPending: boolean } = { settlement: null, startPending: pendingStart !== null };
  try {
    outcome = await countUpstreamCalls(upstreamCalls, () =>
      onUpstreamRetry(
        (retry) => reportRetry(job, retry),
        () =>
          collectLeads({
            provider,
            db,
            record,
            basis,
            signal: controller.signal,
            deadline,
            onSlice: reporter.slice,
            calls: { upstreamCalls, committedCalls },
            publicBaseUrl: config.http.publicBaseUrl,
            leftover,
            start: pendingStart,
            onStarted: () => void (settled.startPending = false),
            // an area tile settles after its tile is recorded (recordTile): never in its last commit
            settle: area === undefined ? { share: deps.lifecycle.share } : null,
            onSettled: (settlement) => void (settled.settlement = settlement),
            ...(area ? { area, onTile: (report: TileReport) => void (tile.report = report) } : {}),
          }),
      ),
    );
    settles = true;
    // A tile its batch's maxResults cut short (its count lowered by commit_page) is not split: the batch is full.
    if (area !== undefined && outcome.kind === 'finished' && basis.requestedCount === record.requestedCount)
      await recordTile(deps.lifecycle, record, basis, area, tile.report);
  } catch (error) {
    const interruption = controller.signal.aborted ? (controller.signal.reason as JobInterrupted) : null;
    if (interruption?.why === 'cancelled') return jobResult(await findJob(db, jobId)); // the API settled it already
    if (interruption?.why === 'shutdown') {
      // Hand the job back: what is committed stays, and the next worker resumes from the cursor.
      await job.moveToWait(token);
      logger.info('job handed back at shutdown');
      throw new WaitingError();
    }
    settles = true;
    if (interruption?.why === 'timeout') outcome = { kind: 'error', reason: 'timeout' };
    else if (error instanceof ProviderError) {
      logger.warn('provider failed', { reason: error.reason, upstreamStatus: error.upstreamStatus, error: error.message });
      outcome = { kind: 'error', reason: error.reason };
    } else if (isLastAttempt(job)) {
      // The job's own code failed on every attempt: a poison job. It is settled here, by the worker
      // that holds it, so the decision is in PostgreSQL before the attempt ends; were this process to
      // die first, the job stalls and the next worker comes back here.
      logger.error('job failed on its last attempt', { attempt: job.attemptsMade + 1, error });
      outcome = { kind: 'error', reason: 'internal_error' };
    } else {
      settles = false;
      // infrastructure or a bug: BullMQ retries, the committed pages stay; a deferred start is written first (if
      // PostgreSQL takes it), so the job shows running as a started one did before decision 037's merge
      if (pendingStart && settled.startPending)
        await startJob(db, jobId, pendingStart.provider, pendingStart.startedAt).catch(() => undefined);
      throw error;
    }
  } finally {
    clearTimeout(timer);
    bullSignal.removeEventListener('abort', onBullAbort);
    reporter.flush();
    reportUpstreamCalls(record.source, upstreamCalls);
    if (settled.settlement === null) await recordRemainder(db, jobId, upstreamCalls, committedCalls, settles ? leftover : null, basis);
  }
  if (settled.settlement) return jobResult((await announceSettlement(deps.lifecycle, settled.settlement, outcome)).settlement?.job);
  // A job that ends before it committed anything (EMPTY, an upstream error at once): its start first, so the
  // terminal row names its provider and start time as before.
  if (pendingStart && settled.startPending) await startJob(db, jobId, pendingStart.provider, pendingStart.startedAt);
  return finish(deps, jobId, outcome, basis);
}

/**
 * What this run of the job cost upstream: the histogram by source and upstream, and a line in the worker's log
 * (carrying the job id). The board shows the job's calls over all its runs in the entry's return value (jobResult),
 * from PostgreSQL: no line in the entry's log, which was a Redis command per job (decision 048).
 */
function reportUpstreamCalls(source: Source, calls: ReadonlyMap<string, number>): void {
  if (calls.size === 0) return;
  for (const [upstream, count] of calls) metrics.upstreamCallsPerJob.observe({ source, upstream }, count);
  logger.info('upstream calls', { upstreamCalls: Object.fromEntries(calls) });
}

/**
 * The run's calls no page commit carried (an upstream error before any page, a page not committed), on the
 * job row before it settles (decision 038): one statement, only when there are such calls. When this run
 * settles the job, the filtered leads no commit carried (those of the pages it did not read to their end) ride
 * on the same statement, a page commit without leads at the cursor the pipeline reached. A failure costs only
 * the figures, never the settlement.
 */
async function recordRemainder(
  db: Database,
  jobId: string,
  calls: ReadonlyMap<string, number>,
  committed: Map<string, number>,
  leftover: { filtered: number; cursor: string | null } | null,
  basis: SettlementBasis,
): Promise<void> {
  const delta = uncommittedCalls(calls, committed);
  const filtered = leftover?.filtered ?? 0;
  if (Object.keys(delta).length === 0 && filtered === 0) return;
  try {
    if (filtered > 0) {
      // a commit like any other: it may find the job's batch full (and lower the row's count, as the basis here)
      const result = await commitPage(db, jobId, [], leftover!.cursor, { filtered, upstreamCalls: delta });
      if (result.kind === 'committed') followBatchCap(basis, result.requestedCount);
    } else await recordUpstreamCalls(db, jobId, delta);
    for (const [name, n] of calls) committed.set(name, n);
  } catch (error) {
    logger.warn('upstream calls not recorded on the job', { error: (error as Error).message });
  }
}

/** A line in the board's Logs per upstream retry (rare: one Redis call each, not awaited). */
function reportRetry(job: Job, retry: UpstreamRetry): void {
  job
    .log(`upstream ${retry.upstream}: attempt ${retry.attempt} failed (${retry.outcome}), retrying in ${retry.delayMs} ms`)
    .catch((error: Error) => logger.debug('job log not recorded', { error: error.message }));
}

// The board's Progress and Logs cost a Redis round trip per write: written at most once a second per
// job, so a job of slices that take seconds (a real upstream) shows each slice (the last ones flushed when it
// ends), and a job done within its first second (its terminal object is its return value anyway) writes
// none and keeps to its budget of round trips.
const PROGRESS_EVERY_MS = 1_000;

/**
 * The board's Progress and Logs, per committed slice (decision 037), at most once a second: both commands are
 * written together on the worker's connection (one round trip) and not awaited, since the page is
 * committed in PostgreSQL already and what Redis shows is only for operators. A failure (the entry
 * removed from the board) costs nothing but the line.
 */
function sliceReporter(job: Job): { slice: (report: SliceReport) => void; flush: () => void } {
  const started = Date.now();
  let lastWrite = started;
  let unwritten: string[] = [];
  let progress: { deliveredCount: number; requestedCount: number } | null = null;
  const write = () => {
    if (unwritten.length === 0 || !progress) return;
    lastWrite = Date.now();
    const lines = unwritten.join('\n');
    unwritten = [];
    Promise.all([job.updateProgress(progress), job.log(lines)]).catch((error: Error) =>
      logger.debug('job progress not recorded', { error: error.message }),
    );
  };
  return {
    slice: ({ slice, leads, deliveredCount, requestedCount }) => {
      unwritten.push(`slice ${slice}: ${leads} lead(s) committed, ${deliveredCount}/${requestedCount} delivered`);
      progress = { deliveredCount, requestedCount };
      if (Date.now() - lastWrite >= PROGRESS_EVERY_MS) write();
    },
    // At the end: the slices not shown yet, for a job that ran past its first second.
    flush: () => {
      if (Date.now() - started >= PROGRESS_EVERY_MS) write();
    },
  };
}

/**
 * Attempts count failures of the job's own code only. A worker that dies does not fail an attempt:
 * BullMQ sees its lock lapse and hands the job to another (a stall), which resumes it.
 */
function isLastAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

// A batch's area never changes: each worker reads it once per batch (a few hundred batches at most in memory).
const areas = new Map<string, ResolvedArea>();
async function areaOf(db: Database, batchId: string): Promise<ResolvedArea | undefined> {
  const known = areas.get(batchId);
  if (known) return known;
  const area = await findBatchArea(db, batchId);
  if (area === null) return undefined;
  if (areas.size >= 500) areas.delete(areas.keys().next().value!);
  areas.set(batchId, area);
  return area;
}

/**
 * A tile searched to its end: its outcome recorded and, when saturated, its quarters added to the batch
 * (@leadgen/commands recordTileSearch), before the tile's child is settled. A tile whose every place was
 * committed before a crash comes back with nothing to search: it delivered the documented maximum, so it was
 * saturated (how many of its places lay outside the area is then not known again: 0 is recorded).
 */
async function recordTile(lc: Lifecycle, record: JobRecord, basis: SettlementBasis, area: ResolvedArea, report: TileReport | null) {
  const searched = report ?? { found: basis.deliveredCount, outsideArea: 0, saturated: basis.deliveredCount >= record.requestedCount };
  const { state, added } = await recordTileSearch(lc, {
    accountId: record.accountId,
    batchId: record.batchId!,
    request: record.request,
    area,
    ...searched,
  });
  logger.info('area tile searched', {
    path: record.request.tile?.path,
    state,
    added,
    found: searched.found,
    outsideArea: searched.outsideArea,
  });
}

/**
 * Settles the job through the one settlement pipeline (@leadgen/commands: PostgreSQL, the source of truth,
 * then metrics, the terminal event and the webhook deliveries) and returns its terminal object for the queue entry.
 */
export async function finish(
  deps: HandlerDependencies,
  jobId: string,
  outcome: JobOutcome,
  basis?: SettlementBasis,
): Promise<LeadJobResult | null> {
  const { settlement } = await settleJob(deps.lifecycle, jobId, outcome, basis);
  return jobResult(settlement?.job);
}
