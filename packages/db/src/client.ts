import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

export type Database = PrismaClient;
/** The handle a repository function receives inside a transaction. */
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

export function createDatabase(url: string, options: { poolSize?: number } = {}): Database {
  const adapter = new PrismaPg({ connectionString: url, max: options.poolSize ?? 10 });
  return new PrismaClient({ adapter });
}

// Interactive transactions here hold a row lock for a few queries (and, when creating a job, one
// Redis call), so the defaults are generous enough for a queue of concurrent requests on one account.
export function transaction<T>(db: Database, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.$transaction(fn, { maxWait: 10_000, timeout: 15_000 });
}
