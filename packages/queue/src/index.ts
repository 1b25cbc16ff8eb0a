export * from './queue-names';
export * from './producer';
export * from './job-events';
export * from './consumer';
export { closeRedis, producerConnection } from './connection';
export { WaitingError, type Job, type Worker, type Queue } from 'bullmq';
