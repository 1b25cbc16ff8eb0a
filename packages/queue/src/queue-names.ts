/**
 * The queue is the contract between the API and the workers.
 *
 * NEVER RENAME a queue once jobs exist: BullMQ keys live in Redis under these names, and a rename
 * strands every waiting job under the old one. Add a new queue and drain the old one instead.
 */
import type { Source } from '@leadgen/domain';
import type { RedisKeys } from './redis-keys';

export const QUEUE_NAMES: { readonly [S in Source]: S } = {
  google_maps: 'google_maps',
  linkedin: 'linkedin',
  shopify: 'shopify',
};

/** One payload type per queue. The database is the source of truth: the payload only points at it. */
export interface LeadJobPayload {
  jobId: string;
  accountId: string;
}

export type QueuePayloads = { [S in Source]: LeadJobPayload & { source: S } };

/** Webhook deliveries (decision 016): one queue for every account and event. NEVER RENAME it either. */
export const WEBHOOK_QUEUE_NAME = 'webhooks';

/** The webhook queue's payload: the delivery row (whose id is also the entry's id and the `webhook-id`). */
export interface WebhookDeliveryPayload {
  deliveryId: string;
  /** the delivery's account, when the producer knew it: its entries' turn among accounts (webhook-queue.ts) */
  accountId?: string;
}

/** Redis pub/sub channels between the API processes and the worker fleet. */
export function channels(keys: RedisKeys) {
  return {
    /** a worker (or a cancelling API process) committed a terminal status; message: the job id */
    jobTerminal: keys.channel('job-terminal'),
    /** the owner cancelled a running job: the worker holding it should abort; message: the job id */
    jobCancel: keys.channel('job-cancel'),
    /** leads of a finished job were erased: API processes drop the job's kept body; message: the job id */
    jobLeadsErased: keys.channel('job-leads-erased'),
    /** a job was created held, its account at its share (decision 020): idle slots may borrow it; message: the source */
    jobHeld: keys.channel('job-held'),
  };
}

/**
 * Monitors' alarm clock (decision 022): one delayed entry per monitor and due time. PostgreSQL holds the
 * schedule; an entry only wakes a worker to tick the monitor, and the sweep rebuilds lost ones. NEVER RENAME it.
 */
export const MONITOR_QUEUE_NAME = 'monitors';

/** The monitor queue's payload: which monitor, and the due time the alarm was set for (PostgreSQL decides whether it still is). */
export interface MonitorAlarmPayload {
  monitorId: string;
  dueAt: string;
}
