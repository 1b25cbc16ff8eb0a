export * from './client';
export * from './job-repository';
export * from './job-creation';
export * from './ledger-repository';
export * from './account-repository';
export * from './idempotency-keys';
export * from './job-settlement';
export * from './page-commit';
export { migrate, ensureDatabase, readMigrations, MIGRATIONS_DIR } from './migrator';
