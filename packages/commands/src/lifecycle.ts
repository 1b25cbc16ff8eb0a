import type { Config } from '@leadgen/config';
import type { Database } from '@leadgen/db';
import type { Source } from '@leadgen/domain';
import type { JobEventPublisher, WebhookProducer } from '@leadgen/queue';

/**
 * What every step of a job's life needs (docs/ARCHITECTURE.md#a-jobs-life), built once per process by
 * createLifecycle: the API's start, the worker's, the admin CLI's. The metrics are the process's registry
 * (@leadgen/ops), which every step reports to through after-commit.ts.
 */
export interface Lifecycle {
  db: Database;
  /** the share (glossary): how many open released jobs of a source an account may have; 0, no bound */
  share: number;
  /** how long a creation's idempotency key binds */
  idempotencyTtlHours: number;
  queue: LifecycleQueue;
  /** the terminal and cancel announcements, and the nudge of a held job (borrowed slots) */
  events: Pick<JobEventPublisher, 'publishTerminal' | 'publishCancel' | 'publishHeld'>;
  /** where the webhook deliveries a step raised are enqueued (decision 016); without it the outbox sweep sends them */
  webhooks?: Pick<WebhookProducer, 'enqueue'>;
}

export interface LifecycleQueue {
  /** puts jobs PostgreSQL released in their source's queue */
  enqueueReleased(source: Source, accountId: string, jobIds: readonly string[]): Promise<void>;
  /** removes a cancelled job's waiting entry (the API and the admin CLI; a worker holds its own entry and has none) */
  removeWaiting?(source: Source, accountId: string, jobId: string): Promise<boolean>;
}

/** The one place the share and the key lifetime are read from the configuration. */
export function createLifecycle(parts: {
  db: Database;
  config: Pick<Config, 'api' | 'queue'>;
  queue: LifecycleQueue;
  events: Lifecycle['events'];
  webhooks?: Lifecycle['webhooks'];
}): Lifecycle {
  return {
    db: parts.db,
    share: parts.config.queue.share,
    idempotencyTtlHours: parts.config.api.idempotencyTtlHours,
    queue: parts.queue,
    events: parts.events,
    ...(parts.webhooks ? { webhooks: parts.webhooks } : {}),
  };
}
