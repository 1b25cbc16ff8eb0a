import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/prisma/client';

/**
 * Prisma for the schema, models and cold paths; `sql`, the very pool Prisma's adapter draws from,
 * for the hot path's hand-written statements (docs/decisions/011-hot-path-sql.md). One bounded
 * pool per process: a connection is borrowed for a statement, never held while a job waits.
 */
export type Database = PrismaClient & { readonly sql: SqlPool };
export type SqlPool = Pool;

/** The handle a repository function receives inside a Prisma transaction. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

export const DEFAULT_POOL_SIZE = 10;

export function createDatabase(url: string, options: { poolSize?: number } = {}): Database {
  // No named prepared statements anywhere (neither here nor in Prisma's adapter), no session state:
  // the pool works behind PgBouncer in transaction mode.
  const pool = new Pool({ connectionString: url, max: options.poolSize ?? DEFAULT_POOL_SIZE });
  // An idle client that loses its server (a PostgreSQL restart) must not crash the process; the
  // pool drops it and the next statement gets a fresh connection.
  pool.on('error', () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  return Object.assign(prisma, { sql: pool });
}

// Interactive transactions serve cold paths only (admin commands); the hot path is single statements.
export function transaction<T>(db: Database, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.$transaction(fn, { maxWait: 10_000, timeout: 15_000 });
}
