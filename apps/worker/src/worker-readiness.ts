import { schemaStatus, type Database } from '@leadgen/db';
import type { Source } from '@leadgen/domain';
import { checkReadiness, type ReadinessReport } from '@leadgen/ops';
import { probeRedis, type LeadQueues, type Worker } from '@leadgen/queue';

export interface WorkerParts {
  db: Database;
  /** the queues of the worker's sources, on a connection that fails fast while Redis is away */
  queues: LeadQueues;
  sources: readonly Source[];
  /** the webhook queue's probe, when this worker delivers webhooks */
  webhooks: { probe(): Promise<void> } | null;
  consumers: Worker[];
  isDraining: () => boolean;
}

/**
 * A worker is ready when PostgreSQL answers with the schema this code expects, each of its queues
 * answers a BullMQ read on the queue's own keys and a script on its slot (what taking a job needs:
 * a PING would answer from a cluster node reached as one node, or from a replica), and every
 * consumer runs; not while it drains at shutdown. Nothing routes traffic to a worker, but rollouts
 * and disruption budgets count ready pods, and an operator reads why one is not.
 */
export function workerReadiness(parts: WorkerParts): () => Promise<ReadinessReport> {
  return () =>
    checkReadiness(
      {
        postgres: async () => {
          const schema = await schemaStatus(parts.db);
          return schema.current ? 'ok' : { state: 'schema_behind', detail: schema.detail };
        },
        redis: () =>
          probeRedis(() =>
            Promise.all([
              ...parts.sources.map(async (source) => {
                // The probe first: it waits for a connection still connecting (just after start),
                // where a read on the fail-fast connection would be refused as if Redis were away.
                await parts.queues.probe(source);
                await Promise.all(parts.queues.shardsOf(source).map((queue) => queue.getJobCounts('wait')));
              }),
              ...(parts.webhooks ? [parts.webhooks.probe()] : []),
            ]),
          ),
        consumers: async () =>
          parts.consumers.every((consumer) => consumer.isRunning())
            ? 'ok'
            : { state: 'stopped', detail: 'a queue consumer is not running' },
      },
      { shuttingDown: parts.isDraining() },
    );
}
