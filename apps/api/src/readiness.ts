import { schemaStatus } from '@leadgen/db';
import { checkReadiness, type ReadinessReport } from '@leadgen/ops';
import type { ApiDependencies } from './dependencies';

/**
 * The API is ready when PostgreSQL answers with every migration this code expects applied (on a
 * database without tables every request would fail) and Redis answers, and it is not draining.
 */
export function apiReadiness(deps: ApiDependencies, isShuttingDown: () => boolean): () => Promise<ReadinessReport> {
  return () =>
    checkReadiness(
      {
        postgres: async () => {
          const schema = await schemaStatus(deps.db);
          return schema.current ? 'ok' : { state: 'schema_behind', detail: schema.detail };
        },
        redis: async () => {
          await deps.redis.ping();
          return 'ok';
        },
      },
      { shuttingDown: isShuttingDown() },
    );
}
