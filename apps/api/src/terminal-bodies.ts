import { LRUCache } from 'lru-cache';
import type { TerminalStatus } from '@leadgen/domain';

interface Entry {
  accountId: string;
  status: TerminalStatus;
  body: string;
}

// A terminal job's body never changes (docs/api.md, "Jobs"), so it is built once per process and
// served from memory after that: a poll of a finished 100-lead job costs no query and no JSON work.
const MAX_BYTES = 32 * 1024 * 1024;

/** The JSON bodies of terminal jobs, least recently used evicted first, bounded in bytes. */
export class TerminalBodies {
  private readonly cache = new LRUCache<string, Entry>({ maxSize: MAX_BYTES, sizeCalculation: (entry) => entry.body.length + 100 });

  /** The body of a terminal job of this account (any account when `accountId` is null). */
  get(jobId: string, accountId: string | null): Entry | undefined {
    const entry = this.cache.get(jobId);
    return entry && (accountId === null || entry.accountId === accountId) ? entry : undefined;
  }

  remember(jobId: string, entry: Entry): void {
    this.cache.set(jobId, entry);
  }

  /** A job whose leads were erased (subject erasure, retention): its body is read again from PostgreSQL. */
  forget(jobId: string): void {
    this.cache.delete(jobId);
  }
}
