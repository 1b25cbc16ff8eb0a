export * from './queue-names';
export * from './producer';
export * from './job-events';
export * from './consumer';
export { closeRedis, producerConnection } from './connection';
export * from './rate-limit-scripts';
export { WaitingError, type Job, type Worker, type Queue } from 'bullmq';
