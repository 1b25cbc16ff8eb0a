import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EncodedChunk, EncodedSuppressions } from '@leadgen/db';
import { errors, SUPPRESSION_UPLOAD_LIMIT, type FieldProblem } from '@leadgen/domain';
import { logger } from '@leadgen/logger';
import { MAX_JSON_DEPTH, SHAPE_ERROR_TYPES } from '../../http/json-body';
import type { JsonShapeLimits, JsonShapeProblem } from '../../http/json-shape';

/**
 * Reads suppression uploads off the event loop (issue 31, finding 3; decision 035): one thread per API process,
 * started on the first upload and stopped after a minute without one. An account has one upload at work at a time
 * in a process (bulk-body.ts refuses its second before reading it), and the thread a few waiting, so an account sending many cannot hold the others' uploads for long
 * either; what waits beyond that is answered 429 at once. The event loop only copies the bytes in and two strings
 * out: another account's request waits for neither the parse nor the validation.
 */
export type ParseRequest =
  { step: 'measure'; id: number; bytes: ArrayBuffer; limits: JsonShapeLimits } | { step: 'read' | 'drop'; id: number };

export type ParseReply = { id: number } & (
  | { outcome: 'measured'; entries: number }
  | { outcome: 'shape'; problem: Exclude<JsonShapeProblem, null> }
  | { outcome: 'entries'; count: number; chunks: EncodedChunk[] }
  | { outcome: 'malformed' }
  | { outcome: 'invalid'; problems: FieldProblem[] }
  | { outcome: 'failed'; message: string }
);

/** What an upload's body may hold, as the route table declares for bulk bodies (account-endpoints.ts). */
const LIMITS: JsonShapeLimits = { maxDepth: MAX_JSON_DEPTH, maxEntries: SUPPRESSION_UPLOAD_LIMIT + 2 };
const WAITING_AT_MOST = 8;
const IDLE_STOP_MS = 60_000;
const RETRY_AFTER_SECONDS = 2;

/**
 * Memory the thread can take over: a large body's own (body-parser concatenates it into a buffer of its own, moved to
 * the thread without a copy); a small one's copied, as it may share its memory with Node's other small buffers.
 */
function ownMemory(bytes: Buffer): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes.buffer;
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy.buffer;
}

// The built image runs dist/api.js beside dist/suppression-parser.js (scripts/build.js); the sources (tsx, jest)
// run the thread's TypeScript through tsx.
function startThread(): Worker {
  const built = path.join(__dirname, 'suppression-parser.js');
  if (path.extname(__filename) === '.js' && existsSync(built)) return new Worker(built);
  const source = path.join(__dirname, 'suppression-parser-thread.ts');
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(source)});`, { eval: true });
}

class UploadParser {
  private thread: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (reply: ParseReply) => void; reject: (error: Error) => void }>();
  private idleTimer: NodeJS.Timeout | null = null;

  /**
   * The upload's entries, encoded for the statement; a problem as the JSON body parser would answer it. `charge`
   * receives the most entries the bytes can hold (their commas, plus one: commas inside strings only raise it, at
   * the sender's cost) before anything is parsed; if it throws (429), nothing is.
   */
  async parse(bytes: Buffer, charge: (entries: number) => Promise<void>): Promise<EncodedSuppressions> {
    if (this.pending.size >= WAITING_AT_MOST) {
      throw errors.rateLimited(RETRY_AFTER_SECONDS, 'uploads of other accounts are being read; retry shortly');
    }
    const owned = ownMemory(bytes);
    const id = (this.nextId += 1);
    const measured = await this.send({ step: 'measure', id, bytes: owned, limits: LIMITS }, [owned]);
    if (measured.outcome !== 'measured') return this.answer(measured);
    if (measured.entries > SUPPRESSION_UPLOAD_LIMIT) {
      // More commas than an upload may hold entries: almost surely refused once read (400, naming the limit), which
      // tells the sender more than a 429 would; read first (off the loop, one at a time per account), charge after.
      const read = this.answer(await this.send({ step: 'read', id }));
      await charge(read.count);
      return read;
    }
    try {
      await charge(measured.entries);
    } catch (error) {
      this.thread?.postMessage({ step: 'drop', id } satisfies ParseRequest);
      throw error;
    }
    return this.answer(await this.send({ step: 'read', id }));
  }

  private answer(reply: ParseReply): EncodedSuppressions {
    switch (reply.outcome) {
      case 'shape':
        throw Object.assign(new Error(`JSON body: too many ${reply.problem}`), { type: SHAPE_ERROR_TYPES[reply.problem], limits: LIMITS });
      case 'measured':
        throw new Error('suppression upload measured, not read');
      case 'entries':
        return { count: reply.count, chunks: reply.chunks };
      case 'malformed':
        throw errors.malformedJson();
      case 'invalid':
        throw errors.validation(reply.problems);
      case 'failed':
        throw new Error(`suppression upload not read: ${reply.message}`);
    }
  }

  private send(request: ParseRequest, transfer: ArrayBuffer[] = []): Promise<ParseReply> {
    const thread = this.running();
    return new Promise<ParseReply>((resolve, reject) => {
      this.pending.set(request.id, { resolve, reject });
      thread.postMessage(request, transfer);
    });
  }

  private running(): Worker {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.thread) return this.thread;
    const thread = startThread();
    thread.unref();
    thread.on('message', (reply: ParseReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      waiting?.resolve(reply);
      if (this.pending.size === 0) this.stopWhenIdle();
    });
    const lost = (error: Error) => {
      if (this.thread !== thread) return;
      this.thread = null;
      if (this.pending.size > 0) logger.error('suppression upload thread ended', { error: error.message });
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    thread.on('error', lost);
    thread.on('exit', (code) => lost(new Error(`suppression upload thread exited (${code})`)));
    this.thread = thread;
    return thread;
  }

  /** Ends the thread now; an upload still waiting for it fails (the API calls this once its requests have drained). */
  async stop(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const thread = this.thread;
    if (thread) await thread.terminate();
  }

  private stopWhenIdle(): void {
    this.idleTimer = setTimeout(() => {
      const thread = this.thread;
      this.thread = null;
      void thread?.terminate();
    }, IDLE_STOP_MS);
    this.idleTimer.unref();
  }
}

export const suppressionUploads = new UploadParser();
