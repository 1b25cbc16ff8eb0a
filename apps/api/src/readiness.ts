import { schemaStatus } from '@leadgen/db';
import { SOURCES } from '@leadgen/domain';
import { checkReadiness, type ReadinessReport } from '@leadgen/ops';
import { probeRedis } from '@leadgen/queue';
import type { ApiDependencies } from './dependencies';

/**
 * The API is ready when PostgreSQL answers with every migration this code expects applied (on a
 * database without tables every request would fail), it can enqueue (a script on each queue's own
 * slot, which a PING would not prove: a cluster node reached as one node, a replica or an ACL
 * answer PING and refuse the enqueue), and it is not draining.
 */
export function apiReadiness(deps: ApiDependencies, isShuttingDown: () => boolean): () => Promise<ReadinessReport> {
  return () =>
    checkReadiness(
      {
        postgres: async () => {
          const schema = await schemaStatus(deps.db);
          return schema.current ? 'ok' : { state: 'schema_behind', detail: schema.detail };
        },
        redis: () => probeRedis(() => Promise.all([...SOURCES.map((source) => deps.producer.probe(source)), deps.webhooks.probe()])),
      },
      { shuttingDown: isShuttingDown() },
    );
}
