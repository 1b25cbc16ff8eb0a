export * from './queue-names';
export * from './job-producer';
export * from './lead-queues';
export * from './lost-job-requeue';
export * from './periodic-task-claim';
export * from './job-events';
export * from './consumer';
export { closeRedis, producerConnection, waitUntilConnected } from './redis-connections';
export { WaitingError, type Job, type Worker, type Queue } from 'bullmq';
