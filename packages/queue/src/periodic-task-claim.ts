import type { RedisClient } from './redis-connections';
import type { RedisKeys } from './redis-keys';

/**
 * A fleet-wide lock per task and period: true for the one caller that takes the key (SET NX PX),
 * false for every other process until the period has passed. Nobody releases it: the period is the lease.
 */
export async function claimPeriodicTask(connection: RedisClient, keys: RedisKeys, name: string, periodMs: number): Promise<boolean> {
  return (await connection.set(keys.key('task', name), '1', 'PX', periodMs, 'NX')) === 'OK';
}
