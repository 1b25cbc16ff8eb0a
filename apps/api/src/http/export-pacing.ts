import { EventEmitter } from 'node:events';
import type { RequestHandler } from 'express';

/**
 * Exports yield to everyone else (issue 31 finding 3, issue 39; decision 049). A download of an account's history is
 * PostgreSQL rendering CSV as fast as one backend can: left alone it takes a core from every other account's calls.
 * So an export runs at full speed only while nothing else waits, and otherwise yields between its COPY's blocks of
 * data: it stops reading the COPY (PostgreSQL's backend blocks on send once the socket's buffers are full and uses no
 * CPU), and it reads its next chunk small. What counts as waiting, in this API process:
 * - another request in flight (any request but a download: a generate waiting for its job, a listing, a health check);
 * - a statement waiting for a connection of the pool;
 * - the event loop late by more than LAG_MS.
 * A yield lasts until nothing waits, or at most YIELD_RATIO times as long as the export's work since its last yield
 * times the exports streaming (at least MIN_PAUSE_MS, at most MAX_PAUSE_MS); then at least one block of data is read.
 * So while others wait, all the process's exports together take about 1/(1 + YIELD_RATIO) of the time whatever the
 * machine's load (a loaded machine makes each burst longer and each yield with it), and none ever starves.
 */
export const YIELD_RATIO = 4;
export const MIN_PAUSE_MS = 20;
export const MAX_PAUSE_MS = 1_000;
export const LAG_MS = 100;
const LAG_SAMPLE_MS = 20;
/** the chunk read while others wait: its COPY is a short burst (milliseconds of the backend's CPU) */
export const CONTENDED_CHUNK = 100;
/** how long after its last yield an export still reads small chunks (others' requests come one after another) */
export const CONTENDED_FOR_MS = 1_000;

export type YieldReason = 'requests' | 'pool' | 'lag';

export interface ExportYield {
  reason: YieldReason;
  /** other requests in flight when the export yielded */
  others: number;
  /** before a chunk's COPY, or inside one (its stream not read) */
  at: 'chunk' | 'copy';
  /** the longest it lasts (less when nothing waits any more) */
  ms: number;
}

export interface ExportPace {
  /** the chunk to read next: `full` when nothing waits, CONTENDED_CHUNK when something does (after a yield) */
  chunk(full: number): Promise<number>;
  /** after each block of COPY data: a promise to wait for while something else waits, else null */
  pace: () => Promise<void> | null;
  yields: number;
  end(): void;
}

interface PoolLike {
  waitingCount: number;
}

class ExportPacing extends EventEmitter {
  private inFlight = 0;
  private exports = 0;
  private lagMs = 0;
  private sampler: NodeJS.Timeout | null = null;
  private wakers = new Set<() => void>();

  /** counts the requests in flight (mounted first) */
  readonly track: RequestHandler = (_req, res, next) => {
    this.inFlight += 1;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      this.inFlight -= 1;
      if (this.others() === 0) this.wake();
    };
    res.on('finish', end);
    res.on('close', end);
    next();
  };

  others(): number {
    return Math.max(0, this.inFlight - this.exports);
  }

  private contended(pool: PoolLike | null): YieldReason | null {
    if (this.others() > 0) return 'requests';
    if (pool && pool.waitingCount > 0) return 'pool';
    if (this.lagMs > LAG_MS) return 'lag';
    return null;
  }

  private wake(): void {
    for (const waker of this.wakers) waker();
    this.wakers.clear();
  }

  /** A yield: until nothing waits or `ms`, whichever comes first. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
    });
  }

  private startSampler(): void {
    let expected = performance.now() + LAG_SAMPLE_MS;
    this.sampler = setInterval(() => {
      const now = performance.now();
      this.lagMs = Math.max(0, now - expected);
      expected = now + LAG_SAMPLE_MS;
    }, LAG_SAMPLE_MS);
    this.sampler.unref();
  }

  /** One export's pace, from its first chunk to its end (`end` in a finally). `pool`: the pool its chunks wait on. */
  start(pool: PoolLike | null): ExportPace {
    this.exports += 1;
    if (!this.sampler) this.startSampler();
    let ended = false;
    // At least one block of COPY data between two yields inside a COPY, so an export always goes on.
    let justYielded = false;
    // When the export last went on (its start, or the end of its last yield): its work since is what a yield pays back.
    let busySince = performance.now();
    // When it last yielded to a request or a statement waiting for a connection: its chunks are small for a while
    // after (a burst of its backend's CPU would delay the next such request). A late event loop alone (a busy
    // machine) pauses it but keeps its chunks whole: small ones would spend more of the machine on the same leads
    // (each chunk's round trip and plan; a loaded box read 20× the round trips per lead), which is what is short.
    let lastWaiter = -Infinity;
    const yieldNow = async (reason: YieldReason, at: ExportYield['at']) => {
      pace.yields += 1;
      if (reason !== 'lag') lastWaiter = performance.now();
      const busy = performance.now() - busySince;
      const ms = Math.min(MAX_PAUSE_MS, Math.max(MIN_PAUSE_MS, YIELD_RATIO * this.exports * busy));
      this.emit('yield', { reason, others: this.others(), at, ms } satisfies ExportYield);
      await this.pause(ms);
      busySince = performance.now();
    };
    const pace: ExportPace = {
      yields: 0,
      pace: () => {
        if (justYielded) {
          justYielded = false;
          return null;
        }
        const reason = this.contended(pool);
        if (!reason) return null;
        justYielded = true;
        return yieldNow(reason, 'copy');
      },
      chunk: async (full) => {
        const reason = this.contended(pool);
        if (reason) await yieldNow(reason, 'chunk');
        return performance.now() - lastWaiter < CONTENDED_FOR_MS ? CONTENDED_CHUNK : full;
      },
      end: () => {
        if (ended) return;
        ended = true;
        this.exports -= 1;
        if (this.exports === 0 && this.sampler) {
          clearInterval(this.sampler);
          this.sampler = null;
          this.lagMs = 0;
        }
      },
    };
    return pace;
  }
}

/** The API process's one pacing (its requests are counted once, whichever app of the process serves them). */
export const exportPacing = new ExportPacing();
