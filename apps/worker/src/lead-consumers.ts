import type { Config } from '@leadgen/config';
import type { Source } from '@leadgen/domain';
import { logger, withLogContext } from '@leadgen/logger';
import { metrics } from '@leadgen/ops';
import type { LeadProvider } from '@leadgen/providers';
import { connectionLog, createLeadConsumer, JobFailedError, QUEUE_NAMES, type Worker } from '@leadgen/queue';
import type { IdleSlotFiller } from './borrow-idle-slots';
import { createLeadJobHandler, type HandlerDependencies } from './process-lead-job';

/**
 * This process's BullMQ consumers: one per shard of each source it runs (QUEUE_SHARDS, decision 048), each running its
 * source's provider. A source's shards share its WORKER_CONCURRENCY slots (SlotGate).
 */
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
  const gates: SlotGate[] = [];
  const workers = providers.flatMap((provider) => {
    const shards = config.redis.queueShards;
    // One shard: its BullMQ Worker's own concurrency is the bound, as it always was.
    const gate = shards > 1 ? new SlotGate(config.worker.concurrency) : null;
    if (gate) gates.push(gate);
    return Array.from({ length: shards }, (_, shard) =>
      consumerOf(provider, shard, gate, deps, config, slots, testProviders[provider.source]),
    );
  });
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
      // Every Worker marks itself closing first (synchronously), then the asks waiting for a slot end empty.
      const closed = Promise.all(workers.map((w) => w.close()));
      for (const gate of gates) gate.close();
      await closed;
    },
  };
}

/**
 * The slots of one source in this process, shared by the consumers of its shards: each BullMQ Worker runs at the
 * source's whole concurrency, and asks Redis for a job only once it holds a slot here. A slot is held from before
 * the ask until the job it took has been processed, or is passed on to the next job BullMQ's completion fetched in
 * the same shard, unless another shard waits for a slot: then the completion fetches nothing and the slot goes to
 * the shard that waited longest, so a busy shard does not keep the slots from the others.
 *
 * A consumer waits for a slot only while it has no job it got and has not begun to process. BullMQ's main loop fetches
 * jobs one after the other and processes them only once it stops fetching, so one that waited holding a fetched job
 * could wait on another doing the same, each holding the slot the other needs; it gets no job at once instead, and
 * processes what it holds. One whose jobs are all being processed waits: they end whatever happens, and an ask that
 * answered nothing at once would have BullMQ's loop ask again without pause.
 */
export class SlotGate {
  private free: number;
  private closed = false;
  private readonly waiters: Array<(got: boolean) => void> = [];

  constructor(slots: number) {
    this.free = slots;
  }

  /** true with a slot; without one, false at once, or (`wait`) true once one is released (false if the gate closes) */
  acquire(wait: boolean): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve(true);
    }
    if (!wait) return Promise.resolve(false);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next(true);
    else this.free += 1;
  }

  /** another shard's ask waits for a slot */
  get contended(): boolean {
    return this.waiters.length > 0;
  }

  close(): void {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter(false);
  }
}

function consumerOf(
  provider: LeadProvider,
  shard: number,
  gate: SlotGate | null,
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
  const consumer = createLeadConsumer(source, shard, counted, {
    redis: config.redis,
    concurrency: config.worker.concurrency,
    lockMs: config.worker.lockMs,
    stalledCheckMs: config.worker.stalledCheckMs,
  });
  countSlots(consumer as unknown as BullWorkerSteps, slots, source, free, gate);
  consumer.on('active', (job) => take(job.id));
  // A job BullMQ fails before its processor runs (an unrecoverable attempt) frees its slot here.
  consumer.on('failed', (job) => free(job?.id));
  // BullMQ re-emits its connections' errors here: bounded like every connection's (connection-log.ts).
  consumer.on('error', connectionLog(`consumer:${consumer.name}`).failed);
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
  gate: SlotGate | null,
): void {
  const ask = worker.moveToActive.bind(worker);
  const run = worker.processJob.bind(worker);
  if (typeof ask !== 'function' || typeof run !== 'function') throw new Error('BullMQ Worker: moveToActive or processJob is gone');
  // The tokens of the jobs being processed: an ask made while one is (BullMQ's handback of a WaitingError fetches the
  // next job) uses that job's slot.
  const processing = new Set<string>();
  // Jobs this consumer got (an ask's, or the next one a completion fetched) that BullMQ has not begun to process: its
  // main loop goes on asking before it processes them, so it may wait for a slot only while it has none of these.
  let unprocessed = 0;
  worker.moveToActive = async (token, name) => {
    const own = gate !== null && !processing.has(token);
    // Without a slot, and jobs to process: no job now; BullMQ processes those, then asks again.
    if (own && !(await gate.acquire(unprocessed === 0))) return undefined;
    const done = slots?.asking(source);
    let job: unknown;
    try {
      job = await ask(token, name);
      return job;
    } finally {
      done?.();
      if (own && job) unprocessed += 1;
      if (own && !job) gate.release();
    }
  };
  worker.processJob = async (job, token, fetchNext) => {
    if (gate) unprocessed -= 1;
    processing.add(token);
    let next: unknown;
    try {
      next = await run(job, token, gate ? () => fetchNext() && !gate.contended : fetchNext);
      return next;
    } finally {
      processing.delete(token);
      free(job.id);
      // A job the completion fetched keeps the slot; otherwise it is free for any shard.
      if (gate && next) unprocessed += 1;
      if (gate && !next) gate.release();
    }
  };
}
