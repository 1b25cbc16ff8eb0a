export * from './settle-job';
export * from './cancel-job';
