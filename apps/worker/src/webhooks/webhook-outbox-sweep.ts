import { overdueWebhookDeliveries, pendingWebhookDeliveries, type Database } from '@leadgen/db';
import { logger } from '@leadgen/logger';
import type { WebhookProducer } from '@leadgen/queue';
import { startPeriodicSweep, type PeriodicSweep } from '../periodic-sweep';

const BATCH = 500;

/**
 * The outbox's other half: PostgreSQL is the source of truth, so a pending delivery must have a
 * queue entry. One whose next attempt is `lostAfterMs` overdue and whose entry is gone (a Redis
 * restart, an enqueue that failed after the settlement, a worker gone with it) is enqueued again,
 * at its due time. It is read again after its queue was asked: an attempt is recorded before its
 * entry ends, so a delivery finished meanwhile shows so here and is left alone.
 */
export async function requeueLostDeliveries(
  db: Database,
  producer: WebhookProducer,
  options: { now?: number; lostAfterMs?: number; accountId?: string } = {},
): Promise<string[]> {
  const { now = Date.now(), lostAfterMs = 30_000, accountId = null } = options;
  const overdue = await overdueWebhookDeliveries(db, new Date(now - lostAfterMs), BATCH, accountId);
  const lost: string[] = [];
  for (const delivery of overdue) if (await producer.hasNoLiveEntry(delivery.id)) lost.push(delivery.id);
  if (lost.length === 0) return [];
  const requeued: string[] = [];
  for (const delivery of await pendingWebhookDeliveries(db, lost)) {
    await producer.requeue(delivery.id, delivery.nextAttemptAt.getTime() - Date.now(), delivery.accountId);
    requeued.push(delivery.id);
  }
  if (requeued.length > 0)
    logger.warn('requeued webhook deliveries whose queue entry was lost', { count: requeued.length, deliveryIds: requeued.slice(0, 20) });
  return requeued;
}

export function startOutboxSweep(
  db: Database,
  producer: WebhookProducer,
  timing: { lostAfterMs: number; periodMs: number },
): PeriodicSweep {
  return startPeriodicSweep('webhook outbox sweep', timing.periodMs, async () => {
    if (await producer.claimPeriodicTask('webhook-outbox', timing.periodMs))
      await requeueLostDeliveries(db, producer, { lostAfterMs: timing.lostAfterMs });
  });
}
