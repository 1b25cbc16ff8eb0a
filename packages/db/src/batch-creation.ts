import { secretContext } from './secret-box';
import type { GenerationRequest } from '@leadgen/domain';
import type { Database, Queryable } from './client';

/** One child of a new batch: an ordinary job, created queued, that reserves `reserve` when it starts. */
export interface NewBatchChild {
  jobId: string;
  resultSetId: string;
  request: GenerationRequest;
  /** the child's worst case (reservationFor), reserved at its first start against the batch and the account */
  reserve: number;
}

export interface NewBatch {
  accountId: string;
  idempotencyKey: string;
  /** sha256 of the normalised batch request: the same key with another body is refused */
  fingerprint: string;
  idempotencyTtlHours: number;
  batchId: string;
  name: string | null;
  excludeDelivered: boolean;
  maxCredits: number | null;
  webhookUrl: string | null;
  children: NewBatchChild[];
  /** becomes the account's default webhook secret when a webhookUrl is given and it has none yet */
  webhookSecretCandidate?: string;
}

export type BatchInsertion =
  | { kind: 'created'; batchId: string }
  /** the key is bound to a live batch already: a replay when `fingerprint` matches, else a reuse */
  | { kind: 'bound'; batchId: string; fingerprint: string }
  | { kind: 'insufficient_credits'; required: number; available: number };

// Undoes a creation whose enqueue failed: no child has a reservation yet (each reserves as it starts), so
// the batch's row goes, and its children with it (jobs.batch_id cascades). A child a worker already took
// is left to run: a batch with a started child is kept.
const WITHDRAW_BATCH = `
DELETE FROM batches b WHERE b.id = $1
  AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.batch_id = $1 AND j.status <> 'queued')`;

/**
 * The one call of create_batch: POST /leads/batches (insertBatch below) and a batch monitor's run both go
 * through it, so a change of its arguments is made here once. On a client whose transaction the caller holds,
 * a monitor's run is created, tagged and recorded together (@leadgen/commands monitor-runs.ts); its children
 * are held, and the caller releases them after the commit (the periodic sweep releases them if it cannot).
 * Null when the key vanished between its conflict and its read.
 */
export async function insertBatchWithin(q: Queryable, db: Pick<Database, 'secrets'>, batch: NewBatch): Promise<BatchInsertion | null> {
  const firstReserve = batch.children[0]?.reserve ?? 0;
  const children = batch.children.map((child) => ({
    jobId: child.jobId,
    resultSetId: child.resultSetId,
    source: child.request.source,
    request: child.request,
    requestedCount: child.request.maxResults,
    reserve: child.reserve,
  }));
  const anyWebhook = batch.webhookUrl !== null || batch.children.some((child) => child.request.webhookUrl);
  const { rows } = await q.query<{
    o_outcome: string;
    o_batch_id: string | null;
    o_fingerprint: string | null;
    o_available: string | null;
  }>('SELECT * FROM create_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)', [
    batch.accountId,
    batch.idempotencyKey,
    batch.fingerprint,
    batch.idempotencyTtlHours,
    batch.batchId,
    batch.name,
    batch.excludeDelivered,
    batch.maxCredits,
    batch.webhookUrl,
    anyWebhook && batch.webhookSecretCandidate
      ? db.secrets.seal(batch.webhookSecretCandidate, secretContext.accountDefault(batch.accountId))
      : null,
    firstReserve,
    JSON.stringify(children),
  ]);
  const row = rows[0];
  if (!row) return null;
  if (row.o_outcome === 'insufficient_credits')
    return { kind: 'insufficient_credits', required: firstReserve, available: Number(row.o_available ?? 0) };
  if (row.o_outcome === 'bound') return { kind: 'bound', batchId: row.o_batch_id!, fingerprint: row.o_fingerprint! };
  return { kind: 'created', batchId: batch.batchId };
}

/**
 * Inserts a batch and its children, held, in one statement (prisma/functions/create_batch.sql). A replay, a
 * reused key or an account that cannot cover the first child writes nothing.
 */
export async function insertBatch(db: Database, batch: NewBatch): Promise<BatchInsertion> {
  // A key bound to a creation being withdrawn at this instant can vanish between the conflict and its read.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const creation = await insertBatchWithin(db.sql, db, batch);
    if (creation) return creation;
  }
  throw new Error('idempotency key could neither be bound nor read after 3 attempts');
}

/**
 * Undoes a creation whose release or enqueue failed. If PostgreSQL cannot be reached either, the children stay
 * queued (held) and the periodic sweep releases them; a retry with the same key replays the batch meanwhile.
 */
export async function withdrawBatch(db: Database, batchId: string): Promise<void> {
  await db.sql.query(WITHDRAW_BATCH, [batchId]).catch(() => undefined);
}
