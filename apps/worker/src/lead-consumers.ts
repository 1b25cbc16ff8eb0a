import type { Config } from '@leadgen/config';
import type { Source } from '@leadgen/domain';
import { logger, withLogContext } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import type { LeadProvider } from '@leadgen/providers';
import { connectionLog, createLeadConsumer, JobFailedError, QUEUE_NAMES, type Worker } from '@leadgen/queue';
import type { IdleSlotFiller } from './borrow-idle-slots';
import { createLeadJobHandler, type HandlerDependencies } from './process-lead-job';

/** This process's BullMQ consumers, one per source it runs, each running its source's provider. */
export interface LeadConsumers {
  readonly workers: Worker[];
  /** starts taking jobs; resolves once every consumer is connected */
  start(): Promise<void>;
  /** aborts the job's handler if this process holds it (a cancel); BullMQ only sees its own jobs */
  cancel(jobId: string): void;
  /** aborts every job held (after the shutdown grace): each is handed back to its queue */
  interruptAll(): void;
  /** stops taking jobs, and resolves once the jobs held have finished or been handed back */
  close(): Promise<void>;
}

export function createLeadConsumers(
  providers: LeadProvider[],
  deps: HandlerDependencies,
  slots?: Pick<IdleSlotFiller, 'started' | 'ended' | 'asking'>,
  /** per source, what serves test accounts' jobs (the sandbox: createTestProviders); the source's provider when absent */
  testProviders: Partial<Record<Source, LeadProvider>> = {},
): LeadConsumers {
  const { config } = deps;
  const workers = providers.map((provider) => consumerOf(provider, deps, config, slots, testProviders[provider.source]));
  // What "no worker consuming a queue" is alerted on: the sum over the fleet per queue.
  const reportConsumers = (perQueue: number) => {
    for (const { source } of providers) metrics.queueConsumers.set({ queue: QUEUE_NAMES[source] }, perQueue);
  };
  return {
    workers,
    async start() {
      for (const worker of workers) void worker.run();
      await Promise.all(workers.map((w) => w.waitUntilReady()));
      reportConsumers(config.worker.concurrency);
    },
    cancel(jobId) {
      for (const worker of workers) worker.cancelJob(jobId, 'cancelled');
    },
    interruptAll() {
      for (const worker of workers) worker.cancelAllJobs('shutdown');
    },
    async close() {
      reportConsumers(0);
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}

function consumerOf(
  provider: LeadProvider,
  deps: HandlerDependencies,
  config: Config,
  slots?: Pick<IdleSlotFiller, 'started' | 'ended' | 'asking'>,
  testProvider?: LeadProvider,
): Worker {
  const { source } = provider;
  const handle = createLeadJobHandler(provider, deps, testProvider);
  // Each slot this consumer holds, counted for the idle-slot filler (borrow-idle-slots.ts): from the moment BullMQ
  // asks Redis for a job (its moveToActive, counted `asking` before it is sent) and, once one came, from its 'active'
  // event (before moveToActive returns, and before the processor is called) until BullMQ's processJob returns, that
  // is after the job's completion or failure was written, and after the job that same call took next (BullMQ's
  // moveToCompleted fetches it) was counted active. Counted only from the processor, a job between the two was in
  // neither count, and the filler borrowed into the reserve for it; freed at the processor's end, the next job
  // moveToCompleted took was in neither count until its reply was read.
  const holding = new Set<string>();
  const take = (jobId: string | undefined) => {
    if (jobId === undefined || holding.has(jobId)) return;
    holding.add(jobId);
    slots?.started(source);
  };
  const free = (jobId: string | undefined) => {
    if (jobId !== undefined && holding.delete(jobId)) slots?.ended(source);
  };
  const counted: typeof handle = async (job, token, signal) => {
    take(job.id);
    return handle(job, token, signal);
  };
  const consumer = createLeadConsumer(source, counted, {
    redis: config.redis,
    concurrency: config.worker.concurrency,
    lockMs: config.worker.lockMs,
    stalledCheckMs: config.worker.stalledCheckMs,
  });
  countSlots(consumer as unknown as BullWorkerSteps, slots, source, free);
  consumer.on('active', (job) => take(job.id));
  // A job BullMQ fails before its processor runs (an unrecoverable attempt) frees its slot here.
  consumer.on('failed', (job) => free(job?.id));
  // BullMQ re-emits its connections' errors here: bounded like every connection's (connection-log.ts).
  consumer.on('error', connectionLog(`consumer:${source}`).failed);
  // Only a report: a job's last attempt settles the job itself (process-lead-job.ts), and one whose
  // attempts ended without a settlement (PostgreSQL away) is found again by the lost-job sweep.
  consumer.on('failed', (job, error) => {
    // A FAILED job's entry: settled and logged as 'job finished' already.
    if (!job || error instanceof JobFailedError) return;
    withLogContext({ jobId: job.data.jobId, source }, () => {
      logger.warn('job attempt failed', { attempt: job.attemptsMade, attempts: job.opts.attempts ?? 1, error: error.message });
    });
  });
  return consumer;
}

/** The two steps of BullMQ's Worker (6.x) a slot is counted around: instance methods, called as `this.…`. */
interface BullWorkerSteps {
  moveToActive(token: string, name?: string): Promise<unknown>;
  processJob(job: { id?: string }, token: string, fetchNext: () => boolean): Promise<unknown>;
}

function countSlots(
  worker: BullWorkerSteps,
  slots: Pick<IdleSlotFiller, 'asking'> | undefined,
  source: Source,
  free: (jobId: string | undefined) => void,
): void {
  const ask = worker.moveToActive.bind(worker);
  const run = worker.processJob.bind(worker);
  if (typeof ask !== 'function' || typeof run !== 'function') throw new Error('BullMQ Worker: moveToActive or processJob is gone');
  worker.moveToActive = async (token, name) => {
    const done = slots?.asking(source);
    try {
      return await ask(token, name);
    } finally {
      done?.();
    }
  };
  worker.processJob = async (job, token, fetchNext) => {
    try {
      return await run(job, token, fetchNext);
    } finally {
      free(job.id);
    }
  };
}
