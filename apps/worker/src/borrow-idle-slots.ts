import { borrowHeldJobs, type Lifecycle } from '@leadgen/commands';
import type { Source } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { loopBusy, sampled } from '@leadgen/ops';

/**
 * Borrowed slots (docs/decisions/020-fair-queues.md): the share lets each account have
 * QUEUE_OPEN_JOBS_PER_ACCOUNT jobs of a source in its queue; past that its jobs are held in PostgreSQL. Without
 * more, one account's backlog would leave the rest of the fleet idle. So each worker watches its own slots per
 * source: while more of them are free than its reserve (WORKER_RESERVED_SLOTS) and its queue has nothing
 * waiting for them, it releases the source's oldest held jobs of any account into them. The reserve stays free
 * for the next account's job, which its creation releases into the queue at once (its account is under its share).
 */
export interface IdleSlotFiller {
  /** this process took a job of the source from its queue (BullMQ moved it to active): a slot is busy */
  started(source: Source): void;
  /**
   * this process is asking its queue for a job of the source (BullMQ's moveToActive is on its way): a slot is busy
   * until the returned function is called, once the job it took, if any, was counted `started`. Redis may move an
   * entry to active before its reply is read here; counted from before the ask is sent, such an entry is never in
   * neither count (see fillOnce).
   */
  asking(source: Source): () => void;
  /** a job of the source ended (or was handed back) in this process: its slot is free */
  ended(source: Source): void;
  /** fills the source's idle slots now (the timer's step; tests) */
  fill(source: Source): Promise<void>;
  /**
   * a job of the source was created held somewhere in the fleet (the API's nudge): fills now if this process has
   * slots beyond its reserve free, and does nothing else otherwise (a busy worker of a large fleet pays no I/O)
   */
  nudge(source: Source): Promise<void>;
  stop(): void;
}

export interface IdleSlotSettings {
  /** WORKER_CONCURRENCY: slots per source in this process */
  concurrency: number;
  /** WORKER_RESERVED_SLOTS: slots per source a borrowed job never takes */
  reserved: number;
  /** how often idle slots are looked at while no job ends (a backlog is also found this way) */
  periodMs: number;
  /**
   * WORKER_BORROW_MAX_BUSY: nothing is borrowed while this process's event loop was busy more than this share of the
   * last look's time (its utilisation, 0–1; 1: slots alone decide). A slot is not a core: CPU-bound jobs fill 50
   * slots with one account's backlog and every other account's job then shares the loop with them (decision 050).
   */
  maxBusy?: number;
}

export interface IdleSlotDependencies {
  lifecycle: Lifecycle;
  /** entries of the source's queue waiting for a slot (BullMQ's wait list) */
  waiting(source: Source): Promise<number>;
  /** this process's event-loop utilisation since the last call (0–1); performance.eventLoopUtilization when absent */
  busy?: () => number;
  /**
   * jobs in this process wait for their account's turn (account-turns.ts): a job borrowed now would wait too, holding a
   * slot the next account's job needs; nothing is borrowed until none waits
   */
  turnsWaiting?: () => number;
}

/** the event loop's utilisation is read over at least this long (borrowing while the loop is busy: decision 050) */
const BUSY_SAMPLE_MS = 100;

/** borrow_held_jobs releases at most this many per call (prisma/functions/borrow_held_jobs.sql) */
const BORROW_BATCH = 100;

interface SlotState {
  active: number;
  /** asks for a job under way (moveToActive sent, its reply not yet read) */
  asking: number;
  /** a fill is under way; `again`: another was asked for meanwhile */
  filling: boolean;
  again: boolean;
  /** the last fill found held jobs: look again each time a slot frees (otherwise the timer looks) */
  backlog: boolean;
}

export function startIdleSlotFiller(deps: IdleSlotDependencies, sources: readonly Source[], settings: IdleSlotSettings): IdleSlotFiller {
  // A reserve as large as the slots: nothing is ever borrowed, so nothing is counted or looked at either.
  if (settings.reserved >= settings.concurrency)
    return { started() {}, asking: () => () => {}, ended() {}, fill: async () => {}, nudge: async () => {}, stop() {} };
  const states = new Map<Source, SlotState>(
    sources.map((s) => [s, { active: 0, asking: 0, filling: false, again: false, backlog: false }]),
  );
  let failing = false;
  const maxBusy = settings.maxBusy ?? 1;
  const busy = deps.busy ?? loopBusy();
  // Sampled at most every BUSY_SAMPLE_MS (over the time since the sample before), so a burst of fills between two
  // samples reads the same figure and a single fill never reads a window too short to mean anything.
  const busyNow = sampled(busy, BUSY_SAMPLE_MS);

  const free = (state: SlotState) => settings.concurrency - state.active - state.asking - settings.reserved;

  async function fillOnce(source: Source, state: SlotState): Promise<void> {
    if (free(state) <= 0) return;
    if ((maxBusy < 1 && busyNow() > maxBusy) || (deps.turnsWaiting?.() ?? 0) > 0) {
      // The cores, not the slots, are full: the backlog waits for its account's share, and the timer looks again.
      state.backlog = false;
      return;
    }
    const waiting = await deps.waiting(source);
    // The slots are counted again after the wait list is read: an entry that left it before the count was taken by
    // this process or by another worker. If by this process, its slot is busy here: the ask that took it was counted
    // (`asking`) before it was sent, so before Redis ran it and so before the count, and it is counted until the job
    // it took is counted active (BullMQ's 'active' event, emitted before its moveToActive returns); a job taken by the
    // call that completes another (moveToCompleted's fetch of the next) keeps the finished job's slot until then
    // (lead-consumers.ts frees a slot only once BullMQ's processJob returns). So no entry this process took is in
    // neither count, whichever reply is read first.
    const want = free(state) - waiting;
    if (want <= 0) return;
    // Released in PostgreSQL and enqueued: one the queue does not take is the lost-job sweep's (after-commit.ts logs it).
    const borrowed = await borrowHeldJobs(deps.lifecycle, source, want);
    state.backlog = borrowed > 0;
    // A call releases at most BORROW_BATCH: a worker with more free slots than that asks again at once.
    if (borrowed === BORROW_BATCH && want > BORROW_BATCH) state.again = true;
    if (borrowed > 0) logger.debug('borrowed idle slots', { source, count: borrowed });
  }

  async function fill(source: Source): Promise<void> {
    const state = states.get(source);
    if (!state) return;
    if (state.filling) {
      state.again = true;
      return;
    }
    state.filling = true;
    try {
      do {
        state.again = false;
        await fillOnce(source, state);
      } while (state.again);
      if (failing) logger.info('idle slots are filled again');
      failing = false;
    } catch (error) {
      // PostgreSQL or Redis away: the timer tries again; said once per outage, not once a second.
      if (!failing) logger.warn('idle slots not filled', { source, error: (error as Error).message });
      failing = true;
    } finally {
      state.filling = false;
    }
  }

  const timer = setInterval(() => {
    for (const source of states.keys()) void fill(source);
  }, settings.periodMs);
  timer.unref();

  return {
    started(source) {
      const state = states.get(source);
      if (state) state.active += 1;
    },
    asking(source) {
      const state = states.get(source);
      if (!state) return () => {};
      state.asking += 1;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        state.asking -= 1;
      };
    },
    ended(source) {
      const state = states.get(source);
      if (!state) return;
      state.active = Math.max(0, state.active - 1);
      if (state.backlog) void fill(source);
    },
    fill,
    async nudge(source) {
      const state = states.get(source);
      if (state && free(state) > 0) await fill(source);
    },
    stop: () => clearInterval(timer),
  };
}
