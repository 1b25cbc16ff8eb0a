import { EventEmitter } from 'node:events';
import {
  AFTER_WHOLE_JOB,
  accountExportJobs,
  copyAccountLeads,
  copyAccountRange,
  type CopyHooks,
  type ExportChunk,
  type ExportJobKey,
  type ExportLineFormat,
  type LeadFilter,
  type LeadKeyset,
  type ReadSide,
} from '@leadgen/db';
import type { ExportPace } from './http/export-pacing';

/**
 * The account's export, read two chunks at once while nothing else waits (issue 39, decision 049 "third release").
 *
 * A single backend renders the export's lines at about half the speed of PostgreSQL's own COPY of the same rows,
 * which plans two workers beside it. So while the pace answers `full` (nothing waits), a chunk is a RANGE of whole
 * jobs whose bounds are known before the leads of the chunk before it are read: the next jobs' keys come from `jobs`
 * (in the export's order, with its filters), and a range ends at the job where their counts reach `full` leads (at
 * least one job). Up to READ_AHEAD ranges' COPYs are then in flight, each on its own pooled connection, and their parts
 * are handed out strictly in order. While anything waits (the pace answers less than `full`), the walk reads as
 * before: one keyset chunk of the pace's small size at a time, after every read in flight has ended.
 *
 * Order and completeness. The walk's position `lo` is a keyset: every lead up to it has been given to a read, none
 * after. A range is (lo, end of job `hi`]: the leads after lo whose job is at or before hi, in (created_at, id,
 * position) order; the next lo is (hi, AFTER_WHOLE_JOB), above any position, so the next range starts at the first
 * job after hi. A keyset chunk is (lo, its last lead]. The reads therefore cover consecutive, disjoint spans of the
 * export's order, each lead in exactly one, and parts are emitted in launch order: the output is the sequential walk's
 * order. The jobs' counts only size ranges: a job whose count is wrong (running, erased, expired) makes a range bigger
 * or smaller, never moves a bound. The export ends when no job of the selection is after lo (the sequential walk:
 * when a chunk after lo is empty; the same condition, as a lead after lo has its job after or at lo's).
 *
 * What a concurrent writer sees (as the sequential walk, each read is its own statement and snapshot): a lead
 * appended to a job is exported if it is committed when the read covering its place runs, else it is not (it is
 * never doubled: the spans are disjoint). The sequential walk covers a job's appended lead with the chunk after the
 * job's last lead; a range covers it with the job's own range. Either way a job still running while the export
 * passes it is exported as far as it had come, and its later leads are in the next export.
 */
export const READ_AHEAD = 2;
/** jobs listed at a time to cut ranges from */
export const JOBS_LISTED = 500;

export interface ExportRead {
  kind: 'range' | 'keyset';
  /** reads in flight once this one started, itself included */
  inFlight: number;
}

/** Every read a walk starts (tests assert on these, not on timings). */
export const exportWalkEvents = new EventEmitter();

const END = Symbol('end of the export');
const EMPTY: ExportChunk = { lines: [], rows: 0, bytes: 0, last: null };

export class AccountExportWalk {
  private readonly queue: Promise<ExportChunk>[] = [];
  /** settles once the last read launched has its pooled connection (or has failed to get one) */
  private connected: Promise<void> = Promise.resolve();
  private markConnected: () => void = () => undefined;
  /** where the next read starts (null: the start); a promise while a keyset chunk, whose last lead it is, is read */
  private lo: Promise<LeadKeyset | null | typeof END>;
  /** jobs after lo, listed and not yet given to a range */
  private jobs: ExportJobKey[] = [];
  /** the last job listed (the next listing starts after it), null before any */
  private listedThrough: ExportJobKey | null = null;
  private inFlight = 0;
  private stopped = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly db: ReadSide,
    private readonly accountId: string,
    private readonly filter: LeadFilter,
    cursor: LeadKeyset | null,
    private readonly format: ExportLineFormat,
    private readonly full: number,
    private readonly pace: ExportPace,
  ) {
    this.lo = Promise.resolve(cursor);
  }

  /** The next part in order; an empty one at the end. */
  async next(): Promise<ExportChunk> {
    for (;;) {
      // Reads launched are handed out even once stopped: a failed one must fail the export, never end it short.
      if (this.queue.length === 0 && (this.stopped || !(await this.launch(null)))) return EMPTY;
      const head = this.queue.shift()!;
      // Read ahead while this one is read: launch decides (the pace) whether it runs beside it or after it.
      if (this.queue.length < READ_AHEAD - 1) await this.launch(head);
      const chunk = await head;
      // A range of jobs without leads (empty, expired, erased) is no part: the walk goes on.
      if (chunk.rows > 0) return chunk;
    }
  }

  /**
   * No read starts after this (the client went, or a read failed), and those in flight stop where they are (their
   * COPY not read further, their connections closed): their parts are nobody's.
   */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort(new Error('export stopped'));
  }

  /**
   * Starts the next read after the reads launched so far; false at the end of the export. `beside`: a read in
   * flight this one may run beside (only when the pace answers full: nothing waits).
   */
  private async launch(beside: Promise<ExportChunk> | null): Promise<boolean> {
    // The read beside must hold its connection first: while it waits for one, the pool's waiting count (which the
    // pace reads as someone else waiting) would be this export's own.
    await this.connected;
    const size = await this.pace.chunk(this.full);
    if (this.stopped) return false;
    // While anything waits: one read at a time, as before.
    if (size < this.full && beside) await beside.catch(() => undefined);
    const lo = await this.lo;
    if (this.stopped || lo === END) return false;
    if (size < this.full) {
      const read = copyAccountLeads(this.db, this.accountId, this.filter, lo, size, this.format, this.pace.pace, this.hooks());
      // A keyset chunk's successor starts after its last lead; an empty chunk is the end.
      this.lo = read.then(
        (chunk) => chunk.last ?? END,
        () => END,
      );
      this.jobs = [];
      this.listedThrough = null;
      this.track(read, 'keyset');
      return true;
    }
    const through = await this.cut(lo, size);
    if (!through) {
      this.lo = Promise.resolve(END);
      return false;
    }
    const read = copyAccountRange(this.db, this.accountId, this.filter, lo, through, this.format, this.pace.pace, this.hooks());
    this.lo = Promise.resolve({ jobCreatedAt: through.jobCreatedAt, jobId: through.jobId, position: AFTER_WHOLE_JOB });
    this.track(read, 'range');
    return true;
  }

  /** The last job of the range after lo: jobs until their counts reach `size` (at least one); null: none after lo. */
  private async cut(lo: LeadKeyset | null, size: number): Promise<ExportJobKey | null> {
    let leads = 0;
    let through: ExportJobKey | null = null;
    for (;;) {
      if (this.jobs.length === 0) {
        // After a keyset chunk the listing starts again at lo's own job (its later leads are still to come).
        const listed = this.listedThrough
          ? await accountExportJobs(this.db, this.accountId, this.filter, this.listedThrough, false, JOBS_LISTED)
          : await accountExportJobs(this.db, this.accountId, this.filter, lo, lo !== null && lo.position !== AFTER_WHOLE_JOB, JOBS_LISTED);
        if (listed.length === 0) return through;
        this.jobs = listed;
        this.listedThrough = listed.at(-1)!;
      }
      const job = this.jobs.shift()!;
      through = job;
      leads += job.leads;
      if (leads >= size) return through;
    }
  }

  /** The hooks of the read about to launch: its `connected` callback, the walk's signal. */
  private hooks(): CopyHooks {
    let done!: () => void;
    this.connected = new Promise((resolve) => (done = resolve));
    this.markConnected = done;
    return { connected: done, signal: this.abort.signal };
  }

  private track(read: Promise<ExportChunk>, kind: ExportRead['kind']): void {
    this.inFlight += 1;
    exportWalkEvents.emit('read', { kind, inFlight: this.inFlight } satisfies ExportRead);
    const settled = () => {
      this.inFlight -= 1;
    };
    // Also settled when the read ends without a connection (it failed to get one): nothing waits for it then.
    const connected = this.markConnected;
    void read.then(connected, connected);
    void read.then(settled, () => {
      settled();
      // A failed read ends the export (the caller sees it in order, after the parts before it); nothing more starts.
      // The reads still in flight are stopped by the caller's stop() once the export is cut.
      this.stopped = true;
    });
    this.queue.push(read);
  }
}
