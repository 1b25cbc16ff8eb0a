import { LRUCache } from 'lru-cache';
import { ERASURE_EPOCH_MAX_AGE_MS } from '@leadgen/db';
import type { TerminalStatus } from '@leadgen/domain';

interface Entry {
  accountId: string;
  status: TerminalStatus;
  body: string;
}

interface Kept extends Entry {
  /** the erasure epoch known before the body was read from PostgreSQL */
  epoch: number;
}

// A terminal job's body never changes (docs/api.md, "Jobs"), so it is built once per process and
// served from memory after that: a poll of a finished 100-lead job costs no query and no JSON work.
// Only an erasure changes it (its leads deleted): see the erasure epoch below.
const MAX_BYTES = 32 * 1024 * 1024;

/**
 * The JSON bodies of terminal jobs, least recently used evicted first, bounded in bytes. A body is
 * served only while the erasure epoch it was read under is PostgreSQL's (decision 031): the epoch is
 * read again, once for all requests, when the last read started more than `maxAgeMs` ago, so a body
 * from before an erasure is never served once that bound has passed after the erasure committed, even
 * when the erasure's message on Redis (`forget`) never arrived. Costs at most one query per `maxAgeMs`,
 * and only while kept bodies are being served.
 */
export class TerminalBodies {
  private readonly cache = new LRUCache<string, Kept>({ maxSize: MAX_BYTES, sizeCalculation: (entry) => entry.body.length + 100 });
  private epoch = -1;
  private checkedAt = -Infinity;
  private checking: Promise<void> | null = null;

  constructor(
    private readonly readEpoch: () => Promise<number>,
    private readonly maxAgeMs = ERASURE_EPOCH_MAX_AGE_MS,
  ) {}

  /** The body of a terminal job of this account (any account when `accountId` is null), if no erasure came since it was read. */
  async get(jobId: string, accountId: string | null): Promise<Entry | undefined> {
    const entry = this.cache.get(jobId);
    if (!entry || (accountId !== null && entry.accountId !== accountId)) return undefined;
    try {
      await this.check();
    } catch {
      // The epoch cannot be read: the body is not served from memory; the caller reads PostgreSQL (and says why it cannot).
      return undefined;
    }
    if (entry.epoch < this.epoch) {
      this.cache.delete(jobId);
      return undefined;
    }
    return entry;
  }

  /**
   * The epoch to keep with a body about to be read: taken before the read, so it is never above the
   * epoch of the read's snapshot (an erasure committed in between makes the body be read again, no harm).
   */
  epochBeforeRead(): number {
    return this.epoch;
  }

  remember(jobId: string, entry: Entry, epoch: number): void {
    this.cache.set(jobId, { ...entry, epoch });
  }

  /** A job whose leads were erased (subject erasure, retention), told through Redis: dropped at once. */
  forget(jobId: string): void {
    this.cache.delete(jobId);
  }

  private check(): Promise<void> {
    if (performance.now() - this.checkedAt < this.maxAgeMs) return Promise.resolve();
    return (this.checking ??= (async () => {
      // The read's start is what counts: an erasure committed before it is seen by it.
      const started = performance.now();
      const epoch = await this.readEpoch();
      this.epoch = Math.max(this.epoch, epoch);
      this.checkedAt = started;
    })().finally(() => {
      this.checking = null;
    }));
  }
}
