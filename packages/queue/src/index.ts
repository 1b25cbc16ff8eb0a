export * from './queue-names';
export * from './producer';
export * from './job-events';
export * from './consumer';
export * from './webhook-queue';
export { closeRedis, producerConnection } from './connection';
export { WaitingError, type Job, type Worker, type Queue } from 'bullmq';
