export * from './queue-names';
export * from './queue-shards';
export * from './job-producer';
export * from './lead-queues';
export * from './lost-job-requeue';
export { enqueueReleasedJobs, findEntry } from './enqueue';
export * from './periodic-task-claim';
export * from './job-events';
export * from './consumer';
export {
  closeRedis,
  producerConnection,
  redisConnection,
  redisKeys,
  topologyOf,
  waitUntilConnected,
  watchConnection,
  type RedisClient,
  type RedisSettings,
  type RedisTopology,
} from './redis-connections';
export { connectionLog, CONNECTION_LOG_INTERVAL_MS } from './connection-log';
export { probeRedis, type RedisRefusal } from './queue-probe';
export { assertOneSlot, RedisKeys, runScript, slotOf, type AccountRedisKeys, type RedisScript } from './redis-keys';
export * from './webhook-queue';
export { WaitingError, type Job, type Worker, type Queue } from 'bullmq';
export * from './monitor-queue';
