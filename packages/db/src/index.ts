export * from './client';
export * from './jobs';
export * from './job-listing';
export * from './lead-listing';
export * from './job-creation';
export * from './credit-ledger';
export * from './accounts';
export * from './idempotency-keys';
export * from './job-settlement';
export * from './page-commit';
export {
  migrate,
  ensureDatabase,
  dropDatabase,
  readMigrations,
  onlineSteps,
  outsideTransaction,
  generatesStatements,
  migrateBefore,
  MIGRATIONS_DIR,
  runtimeRoleOf,
  scramVerifier,
  type RuntimeRole,
  type RuntimeTimeouts,
  type MigrateOptions,
  type MigrateResult,
  type MigrationFile,
} from './migrator';
export { readFunctionFiles, FUNCTIONS_DIR, type FunctionFile } from './function-files';
export * from './schema-status';
export * from './suppressions';
export * from './operator-queries';
export * from './webhook-endpoints';
export * from './webhook-delivery-listing';
export * from './webhook-attempts';
export * from './webhook-outbox';
export * from './webhook-retention';
export * from './lost-jobs';
export * from './held-jobs';
export * from './secret-box';
export * from './secret-rotation';
export * from './audit-events';
export * from './subject-erasure';
export * from './monitors';
export * from './monitor-runs';
export * from './lead-retention';
export * from './partitions';
export * from './account-deletion';
export * from './batch-creation';
export * from './batches';
export * from './area-batches';
export * from './live-key-hashes';
export * from './erasure-epoch';
export * from './export-estimate';
export * from './lead-export-copy';
export * from './connection-failure';
export * from './host-selection';
export * from './objections';
export * from './api-keys';
export * from './account-ledger';
export * from './read-replica';
