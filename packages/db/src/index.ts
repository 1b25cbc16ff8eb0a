export * from './client';
export * from './job-repository';
export * from './lead-repository';
export * from './ledger-repository';
export * from './account-repository';
export * from './idempotency-repository';
export * from './job-settlement';
export * from './page-commit';
export { migrate, ensureDatabase, readMigrations, MIGRATIONS_DIR } from './migrator';
