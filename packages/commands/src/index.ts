// One home for a job's life (docs/ARCHITECTURE.md#a-jobs-life): every step that creates, releases, borrows,
// settles or cancels a job is here, and each ends in the one after-commit step (after-commit.ts).
export * from './lifecycle';
export * from './after-commit';
export * from './create-job';
export * from './create-batch';
export * from './monitor-runs';
export * from './release-held-jobs';
export * from './settle-job';
export * from './cancel-job';
export * from './record-tile';
