import { schemaStatus, type Database } from '@leadgen/db';
import { checkReadiness, type ReadinessReport } from '@leadgen/ops';
import type { Worker } from '@leadgen/queue';
import type { Redis } from 'ioredis';

export interface WorkerParts {
  db: Database;
  /** a connection that fails fast while Redis is away (no offline queue) */
  redis: Redis;
  consumers: Worker[];
  isDraining: () => boolean;
}

/**
 * A worker is ready when PostgreSQL answers with the schema this code expects, Redis answers and
 * every consumer runs; not while it drains at shutdown. Nothing routes traffic to a worker, but
 * rollouts and disruption budgets count ready pods, and an operator reads why one is not.
 */
export function workerReadiness(parts: WorkerParts): () => Promise<ReadinessReport> {
  return () =>
    checkReadiness(
      {
        postgres: async () => {
          const schema = await schemaStatus(parts.db);
          return schema.current ? 'ok' : { state: 'schema_behind', detail: schema.detail };
        },
        redis: async () => {
          await parts.redis.ping();
          return 'ok';
        },
        consumers: async () =>
          parts.consumers.every((consumer) => consumer.isRunning())
            ? 'ok'
            : { state: 'stopped', detail: 'a queue consumer is not running' },
      },
      { shuttingDown: parts.isDraining() },
    );
}
