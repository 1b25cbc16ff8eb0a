import { logger } from '@leadgen/logger';
import { answerWithin } from '@leadgen/ops';
import { closeRedis, redisConnection, waitUntilConnected, type RedisSettings } from '@leadgen/queue';

const RETRY_MS = 5_000;

/** The variable that says where Redis is, for the topology configured, and where it points (no credentials). */
export function redisTarget(settings: RedisSettings): string {
  if (settings.clusterNodes) return `REDIS_CLUSTER_NODES (${settings.clusterNodes.map((n) => `${n.host}:${n.port}`).join(',')})`;
  if (settings.sentinels) return `REDIS_SENTINELS (${settings.sentinels.map((n) => `${n.host}:${n.port}`).join(',')})`;
  try {
    const parsed = new URL(settings.url);
    return `REDIS_URL (${parsed.hostname}:${parsed.port || '6379'})`;
  } catch {
    return 'REDIS_URL';
  }
}

/**
 * Resolves once Redis answers a PING, on whatever topology is configured (one connection, built where every
 * connection is). Until then the worker cannot consume anything; rather than reconnecting silently, one line
 * every few seconds names the variable to fix, and `onWaiting` lets the readiness probe say `redis`.
 */
export async function waitForRedis(settings: RedisSettings, onWaiting: (waiting: boolean) => void, retryMs = RETRY_MS): Promise<void> {
  const redis = redisConnection(settings, 'producer', 'startup-check');
  try {
    for (;;) {
      try {
        // A fail-fast connection refuses commands until it is up: give it its connect attempt first.
        await waitUntilConnected(redis, 2_000);
        await answerWithin(2_000, redis.ping(), 'Redis');
        onWaiting(false);
        return;
      } catch {
        onWaiting(true);
        logger.warn(`Redis does not answer at ${redisTarget(settings)}: start it, or fix the variable; retrying in ${retryMs / 1000} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  } finally {
    await closeRedis(redis);
  }
}
