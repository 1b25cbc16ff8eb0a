import { commitPage, startJob, type Database, type JobRecord, type Settlement, type SettlementBasis } from '@leadgen/db';
import { leadNotice, suppressionKeysOf, type JobOutcome, type ResolvedArea } from '@leadgen/domain';
import { metrics } from '@leadgen/ops';
import type { LeadFinisher, LeadProvider, ProviderLead, ProviderPage, TileReport } from '@leadgen/providers';

/**
 * A job's leads as their upstreams allow (decision 037). Three things run at once, each as far as the job
 * still needs it:
 *
 * - **pages**: the next upstream page is asked for as soon as the last one answered (its token is known),
 *   while earlier leads are being finished, and only while the leads in flight are not expected to fill the
 *   request: `committed + ready + (finishing + waiting) × keep rate < requested`, the keep rate being what
 *   the job's decided leads so far kept (dropped by a filter, or skipped at commit as already delivered or
 *   suppressed), optimistic (+1) at first;
 * - **finishing** (a lead's website read, its addresses verified: the page's `finish`): started in upstream
 *   order, as many at once as `committed + ready + finishing × keep rate < requested` allows, so a job reads
 *   about as many sites at once as it still needs leads and none it will not deliver; the worker's enricher
 *   bounds them all together (its site budget and per-host politeness);
 * - **commits**: what is ready is committed in time slices, one `commit_page` each: each
 *   `GATHER_MS` after its first lead is ready and at most every `SLICE_MS`, at once when the slice
 *   completes the job or nothing else is on its way.
 *
 * Which leads are delivered does not depend on timing: a ready lead is committed only when the leads before
 * it in upstream order that may still be delivered (finishing, ready) leave it room, so the job delivers the
 * first `requested` leads in upstream order that survive their filters. A slow site delays only its own lead
 * (and, at the end of a job, the leads after it that need its place). A lead's `position` is its delivery
 * order: within a slice upstream order, across slices the order they became ready.
 *
 * The resume cursor committed with a slice is that of the last page whose every lead is decided (committed,
 * skipped or dropped), together with the slice's leads: a worker that dies loses at most the leads in flight,
 * and the one that resumes reads the pages after that cursor again, their committed leads skipped by the
 * result set's dedup key, so nothing is delivered or billed twice.
 *
 * Filters (decision 038): a lead the adapter's filters left out before handing the page over (`page.filtered`)
 * or that its finish dropped (`false`: requiredChannels, requireEmail after the website) is counted in the
 * job's `skipped.filtered` with the commit whose cursor first moves past its page, so a resumed job that reads
 * the page again does not count it twice (a job that runs dry commits the last of them on its own). The filtered
 * leads of the pages the job did not read to their end (it had enough, ran out of time, or its upstream failed)
 * are left in `leftover` for the worker, which counts them only when the job settles for good: a job that is
 * retried reads those pages again and counts them then. A dropped
 * lead also lowers the keep rate, so the pipeline keeps paging for the leads the filters take; the leads left
 * out before the page was handed over were never in flight and do not. Each commit carries the upstream calls
 * made since the one before (`commit_page`'s 5-argument form).
 */

/** a slice is committed this long after its first lead is ready, so the leads ready in the same instant share its transaction */
const GATHER_MS = 40;
/** later slices: at most one transaction per job this often while leads keep arriving */
export const SLICE_MS = 300;
/** finishes in flight per job (the worker's enricher bounds every job's together) */
const MAX_FINISHING = 100;
/**
 * A deferred start (open_job.sql) rides on the job's first commit; a job that has committed nothing this long after
 * it was taken has its start written on its own, so a job waiting on its upstreams shows `running` as before.
 */
export const START_WRITE_MS = 1_000;

export interface SliceReport {
  slice: number;
  leads: number;
  deliveredCount: number;
  requestedCount: number;
}

type LeadState = 'waiting' | 'finishing' | 'ready' | 'decided';

interface Candidate {
  row: ProviderLead;
  page: PageEntry;
  finish: LeadFinisher | undefined;
  state: LeadState;
}

interface PageEntry {
  cursor: string | null;
  /** leads of the page not decided yet */
  open: number;
  /** leads of the page a filter left out (the adapter's, then the ones dropped by their finish) */
  filtered: number;
}

/** The pipeline's own end: aborts what is still in flight (a page, finishes) once the job has what it needs. */
class PipelineDone extends Error {
  constructor() {
    super('the job has what it needs');
  }
}
/**
 * One for every job: it only tells what is still in flight why it was called off, and nothing reads its stack. Made
 * at each job's end it was 0.7% of the worker's CPU at c=50 (issue 32): an Error captures its stack when made.
 */
const PIPELINE_DONE = new PipelineDone();

export interface PipelineInput {
  provider: LeadProvider;
  db: Database;
  record: JobRecord;
  /** updated with each commit: what the settlement is decided from */
  basis: SettlementBasis;
  signal: AbortSignal;
  deadline: number;
  onSlice: (report: SliceReport) => void;
  /** the run's upstream calls so far, and what of them the job row has already (decision 038) */
  calls: { upstreamCalls: ReadonlyMap<string, number>; committedCalls: Map<string, number> };
  /** an area search's tile (decision 039): its batch's area, for the adapter's clipping */
  area?: ResolvedArea;
  /** an area search's tile: told what its search listed when the page that reports it arrives */
  onTile?: (report: TileReport) => void;
  /** PUBLIC_BASE_URL, for the objection link of each lead's notice (issue 38); null or absent: the notice has none */
  publicBaseUrl?: string | null;
  /**
   * Set when the pipeline ends, however it ends: the filtered leads no commit carried (those of the pages the
   * job did not read to their end included) and the resume cursor as far as it got.
   */
  leftover?: { filtered: number; cursor: string | null };
  /** the job's deferred start (decision 037's hot path): written by its first commit, or after START_WRITE_MS */
  start?: { provider: string; startedAt: Date } | null;
  /** the deferred start was written (by a commit, or on its own) */
  onStarted?: () => void;
  /**
   * the job may be settled by the commit that completes it, in the same transaction (commit_slice), when nothing
   * else of it is in flight (so every upstream call it made is on that commit); `share` as recordSettlement's
   */
  settle?: { share: number } | null;
  /** that commit settled the job: the caller announces it (announceSettlement) instead of settling it */
  onSettled?: (settlement: Settlement) => void;
}

/** The calls counted since the last commit, by upstream (those not yet on the job row). */
export function uncommittedCalls(calls: ReadonlyMap<string, number>, committed: ReadonlyMap<string, number>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [name, n] of calls) {
    const more = n - (committed.get(name) ?? 0);
    if (more > 0) delta[name] = more;
  }
  return delta;
}

/**
 * commit_page's rule for a child of a batch with a batch-wide maxResults (decision 039), on the worker's copy of
 * the row: once the child has delivered all the batch lets it (`mayDeliver`, a commit's o_requested_count) and
 * that is something, the row's requested_count is lowered to it, so the child settles COMPLETE, not PARTIAL.
 */
export function followBatchCap(basis: SettlementBasis, mayDeliver: number): void {
  if (mayDeliver < basis.requestedCount && basis.deliveredCount >= mayDeliver && basis.deliveredCount > 0)
    basis.requestedCount = mayDeliver;
}

export async function collectLeads(input: PipelineInput): Promise<JobOutcome> {
  const { record, deadline } = input;
  if (record.deliveredCount >= record.requestedCount) return { kind: 'finished' };
  if (Date.now() >= deadline) return { kind: 'error', reason: 'timeout' };
  return new LeadPipeline(input).run();
}

class LeadPipeline {
  /** the job's maxResults, lowered when its batch-wide maxResults leaves it less (an area search, decision 039) */
  private requested: number;
  private committed: number;
  private cursor: string | null;
  private readonly candidates: Candidate[] = [];
  private readonly pages: PageEntry[] = [];
  /** candidates before this index are decided; pages before this index are fully decided */
  private firstOpen = 0;
  private firstOpenPage = 0;
  private nextToStart = 0;
  private finishing = 0;
  private ready = 0;
  /** when the oldest lead waiting for the next slice became ready */
  private sliceOpenedAt: number | null = null;
  private lastCommitAt: number | null = null;
  private kept = 0;
  private dropped = 0;
  /** filtered leads of the pages the cursor has moved past, not yet committed */
  private filteredPending = 0;
  private fetching = false;
  private exhausted = false;
  private failure: { error: unknown } | null = null;
  private slices = 0;
  private withMatches = false;
  private waker: (() => void) | null = null;
  private readonly inner = new AbortController();
  private readonly pageIterator: AsyncIterator<ProviderPage>;
  /** the deferred start, until a commit or its own statement writes it */
  private pendingStart: { provider: string; startedAt: Date } | null;

  constructor(private readonly input: PipelineInput) {
    this.pendingStart = input.start ?? null;
    this.requested = input.record.requestedCount;
    this.committed = input.record.deliveredCount;
    this.cursor = input.record.cursor;
    const onAbort = () => this.inner.abort(input.signal.reason);
    if (input.signal.aborted) this.inner.abort(input.signal.reason);
    else input.signal.addEventListener('abort', onAbort, { once: true });
    this.inner.signal.addEventListener('abort', () => this.wake(), { once: true });
    this.pageIterator = input.provider
      .search(input.record.request, {
        signal: this.inner.signal,
        cursor: input.record.cursor,
        deadline: input.deadline,
        ...(input.area ? { area: input.area } : {}),
      })
      [Symbol.asyncIterator]();
  }

  async run(): Promise<JobOutcome> {
    try {
      for (;;) {
        if (this.input.signal.aborted) throw this.input.signal.reason;
        if (this.committed >= this.requested) return this.batchFull() ? { kind: 'budget_exhausted' } : { kind: 'finished' };
        if (this.pendingStart && Date.now() >= this.pendingStart.startedAt.getTime() + START_WRITE_MS) {
          // Nothing committed in the job's first instant: its start on its own, as before decision 037's merge.
          const { provider, startedAt } = this.pendingStart;
          if ((await startJob(this.input.db, this.input.record.id, provider, startedAt)) === null) return { kind: 'cancelled' };
          this.started();
        }
        // After a failure (a page, or a lead's finish, failed) no page is asked for, but the leads already listed are
        // still finished and committed as far as they go: the job ends PARTIAL with them.
        this.startFinishes();
        if (!this.failure) this.askForPage();
        const slice = this.eligible();
        const outstanding = this.finishing > 0 || this.fetching;
        if (slice.length === 0 && !outstanding) {
          // Nothing in flight and nothing to commit: the source ran dry, or a page or a lead failed. The filtered
          // leads of the pages decided since the last commit are counted first (with their cursor).
          if (this.filteredPending > 0 && (await this.commit([])) === 'stopped') return { kind: 'cancelled' };
          if (this.failure) throw this.failure.error;
          return { kind: 'finished' };
        }
        const startDue = this.pendingStart ? this.pendingStart.startedAt.getTime() + START_WRITE_MS : Infinity;
        if (slice.length > 0) {
          const due = this.commitDue(slice.length, outstanding);
          if (due <= Date.now()) {
            if ((await this.commit(slice, !outstanding)) === 'stopped') return { kind: 'cancelled' };
            continue;
          }
          await this.sleep(Math.min(due, startDue) - Date.now());
        } else await this.sleep(startDue - Date.now());
      }
    } finally {
      if (this.input.leftover) {
        const unread = this.pages.slice(this.firstOpenPage).reduce((n, page) => n + page.filtered, 0);
        this.input.leftover.filtered = this.filteredPending + unread;
        this.input.leftover.cursor = this.cursor;
      }
      this.inner.abort(PIPELINE_DONE);
      // Not awaited: a page still in flight ends with the abort, and nothing waits for it.
      this.pageIterator.return?.(undefined).catch(() => undefined);
    }
  }

  /** Its batch is full before this child delivered anything: nothing of it is needed (settled CANCELLED, uncharged). */
  private batchFull(): boolean {
    return this.committed === 0 && this.requested < this.input.record.requestedCount;
  }

  /** How many of the decided leads were kept, optimistic at first (+1 each side). */
  private keepRate(): number {
    return (this.kept + 1) / (this.kept + this.dropped + 1);
  }

  private startFinishes(): void {
    const keep = this.keepRate();
    while (this.nextToStart < this.candidates.length && this.finishing < MAX_FINISHING) {
      if (this.committed + this.ready + this.finishing * keep >= this.requested) return;
      const candidate = this.candidates[this.nextToStart++]!;
      if (candidate.finish === undefined) {
        this.becomeReady(candidate);
        continue;
      }
      candidate.state = 'finishing';
      this.finishing += 1;
      const finish = candidate.finish;
      finish(candidate.row, this.inner.signal).then(
        (keepIt) => {
          this.finishing -= 1;
          if (keepIt) this.becomeReady(candidate);
          else {
            // a filter left it out (decision 038): counted, and a drop for the keep rate, so paging goes on
            this.dropped += 1;
            candidate.page.filtered += 1;
            this.decide(candidate);
          }
          this.wake();
        },
        (error: unknown) => {
          this.finishing -= 1;
          // never started again (nextToStart has moved on), and nothing after it is committed in its place
          candidate.state = 'waiting';
          if (!this.inner.signal.aborted) this.failure ??= { error };
          this.wake();
        },
      );
    }
  }

  private becomeReady(candidate: Candidate): void {
    candidate.state = 'ready';
    this.ready += 1;
    this.sliceOpenedAt ??= Date.now();
  }

  private askForPage(): void {
    if (this.fetching || this.exhausted) return;
    const inFlight = this.candidates.length - this.nextToStart + this.finishing;
    if (this.committed + this.ready + inFlight * this.keepRate() >= this.requested) return;
    this.fetching = true;
    this.pageIterator.next().then(
      (step) => {
        this.fetching = false;
        if (step.done) this.exhausted = true;
        else {
          if (step.value.tile) this.input.onTile?.(step.value.tile);
          const page: PageEntry = { cursor: step.value.cursor, open: step.value.leads.length, filtered: step.value.filtered ?? 0 };
          this.pages.push(page);
          for (const row of step.value.leads) this.candidates.push({ row, page, finish: step.value.finish, state: 'waiting' });
          this.advanceCursor();
        }
        this.wake();
      },
      (error: unknown) => {
        this.fetching = false;
        if (!this.inner.signal.aborted) this.failure ??= { error };
        this.wake();
      },
    );
  }

  /**
   * The ready leads that may be committed now, in upstream order: each needs a place that the leads before it
   * which may still be delivered (finishing or ready) leave, so what is delivered never depends on timing.
   */
  private eligible(): Candidate[] {
    let room = this.requested - this.committed;
    const slice: Candidate[] = [];
    for (let i = this.firstOpen; i < this.candidates.length && room > 0; i++) {
      const candidate = this.candidates[i]!;
      if (candidate.state === 'ready') {
        slice.push(candidate);
        room -= 1;
      } else if (candidate.state === 'finishing') room -= 1;
      else if (candidate.state === 'waiting') break; // started in order: nothing after it has started
    }
    return slice;
  }

  private commitDue(size: number, outstanding: boolean): number {
    // The job's last slice, or nothing else on its way: at once.
    if (this.committed + size >= this.requested || !outstanding) return Date.now();
    // A slice gathers what is ready within GATHER_MS of its first lead (the leads of one page verified in one
    // instant share a transaction), and comes at most every SLICE_MS.
    const gathered = (this.sliceOpenedAt ?? Date.now()) + GATHER_MS;
    return this.lastCommitAt === null ? gathered : Math.max(gathered, this.lastCommitAt + SLICE_MS);
  }

  private started(): void {
    this.pendingStart = null;
    this.input.onStarted?.();
  }

  /** `alone`: nothing else of the job is in flight, so a slice that completes it may settle it too */
  private async commit(slice: Candidate[], alone = false): Promise<'committed' | 'stopped'> {
    const { db, record, basis } = this.input;
    // The slice's leads are decided before the cursor is chosen: it may then move past their pages.
    for (const candidate of slice) {
      this.ready -= 1;
      this.decide(candidate);
    }
    // Every lead delivered carries its notice (GDPR art. 14 and 21(4), docs/data-protection.md), decided from its
    // final provenance: after enrichment and verification, as it is stored.
    for (const candidate of slice) candidate.row.lead.notice = leadNotice(candidate.row.lead, this.input.publicBaseUrl ?? null);
    const rows = slice.map((candidate) => candidate.row);
    const cursor = this.cursor;
    // The filtered leads of the pages this cursor moves past and the upstream calls since the last commit ride
    // on the same statement (decision 038); finishes that end while it runs count with the next one.
    const { upstreamCalls, committedCalls } = this.input.calls;
    const extra = { filtered: this.filteredPending, upstreamCalls: uncommittedCalls(upstreamCalls, committedCalls) };
    const matched = () => rows.map((item) => ({ ...item, matches: suppressionKeysOf(item.lead, record.request.state) }));
    // Each lead's domains, emails and phones are read only once the account is known to keep a suppression
    // list (the first commit says so, writing nothing, and is sent again).
    // The job's deferred start, and its settlement when this slice completes it with nothing else in flight, ride on
    // the same transaction (commit_slice): a job of one slice is one commit.
    // Not when a page it stopped reading holds filtered leads: those are counted by the settlement of its own
    // (recordRemainder), which a settled job could no longer take.
    const settle = this.input.settle;
    const unreadFiltered = this.pages.slice(this.firstOpenPage).reduce((n, page) => n + page.filtered, 0);
    const merge = {
      ...(this.pendingStart ? { start: this.pendingStart } : {}),
      ...(settle && alone && unreadFiltered === 0 && this.committed + rows.length >= this.requested
        ? { settle: { source: record.source, requestedCount: this.requested, share: settle.share } }
        : {}),
    };
    let result = await commitPage(db, record.id, this.withMatches ? matched() : rows, cursor, extra, merge);
    if (result.kind === 'needs_matches') {
      this.withMatches = true;
      result = await commitPage(db, record.id, matched(), cursor, extra, merge);
    }
    if (result.kind === 'committed') {
      if (this.pendingStart) this.started();
      if (result.settlement) this.input.onSettled?.(result.settlement);
      this.filteredPending -= extra.filtered;
      for (const [name, n] of Object.entries(extra.upstreamCalls)) committedCalls.set(name, (committedCalls.get(name) ?? 0) + n);
    }
    this.lastCommitAt = Date.now();
    this.sliceOpenedAt = this.ready > 0 ? this.lastCommitAt : null;
    if (result.kind === 'stopped') return 'stopped';
    if (result.kind === 'needs_matches') throw new Error('page commit asked for suppression matches twice');
    const added = result.deliveredCount - this.committed;
    this.kept += added;
    this.dropped += slice.length - added;
    if (added > 0) {
      metrics.leadsDelivered.inc({ source: record.source }, added);
      if (this.committed === 0 && basis.deliveredCount === 0)
        metrics.timeToFirstLead.observe({ source: record.source }, (Date.now() - record.createdAt.getTime()) / 1000);
    }
    this.committed = result.deliveredCount;
    basis.deliveredCount = result.deliveredCount;
    // A batch-wide maxResults: what the batch still lacks bounds this child (commit_page, under the batch's lock).
    // The bound may come with one commit and be reached by a later one: the basis follows the row at each.
    if (result.requestedCount < this.requested) this.requested = result.requestedCount;
    followBatchCap(basis, this.requested);
    if (slice.length === 0) return 'committed';
    this.slices += 1;
    this.input.onSlice({ slice: this.slices, leads: added, deliveredCount: result.deliveredCount, requestedCount: result.requestedCount });
    return 'committed';
  }

  private decide(candidate: Candidate): void {
    candidate.state = 'decided';
    candidate.page.open -= 1;
    while (this.firstOpen < this.candidates.length && this.candidates[this.firstOpen]!.state === 'decided') this.firstOpen += 1;
    this.advanceCursor();
  }

  /** The resume cursor: that of the last page whose every lead is decided, and all before it. */
  private advanceCursor(): void {
    while (this.firstOpenPage < this.pages.length && this.pages[this.firstOpenPage]!.open === 0) {
      this.cursor = this.pages[this.firstOpenPage]!.cursor;
      this.filteredPending += this.pages[this.firstOpenPage]!.filtered;
      this.firstOpenPage += 1;
    }
  }

  private wake(): void {
    const waker = this.waker;
    this.waker = null;
    waker?.();
  }

  /** Until something changes (a page, a finished lead, an abort) or `ms` pass. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = Number.isFinite(ms) ? setTimeout(() => this.wake(), Math.max(0, ms)) : null;
      this.waker = () => {
        if (timer) clearTimeout(timer);
        resolve();
      };
    });
  }
}
