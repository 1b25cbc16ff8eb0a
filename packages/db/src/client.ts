import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/prisma/client';
import { failoverPoolOptions } from './host-selection';
import { DEVELOPMENT_SECRETS_KEY, LockedSecretBox, SecretBox } from './secret-box';

/**
 * Prisma for the schema, models and cold paths; `sql`, the very pool Prisma's adapter draws from,
 * for the hot path's hand-written statements (docs/decisions/011-hot-path-sql.md). One bounded
 * pool per process: a connection is borrowed for a statement, never held while a job waits.
 */
export type Database = PrismaClient & {
  readonly sql: SqlPool;
  /** seals and opens the webhook secrets it stores */ readonly secrets: SecretBox;
};
export type SqlPool = Pool;

export const DEFAULT_POOL_SIZE = 10;

/**
 * `secretKeys`: SECRETS_ENCRYPTION_KEY's keys, newest first (config.secrets.encryptionKeys); unset, the
 * development key; `locked` for a process that never seals or opens a webhook secret (it holds no key).
 */
export function createDatabase(
  url: string,
  options: {
    poolSize?: number;
    secretKeys?: readonly Buffer[] | null | 'locked';
    /** a multi-host URL's host chosen (at the first connection, then after each failover), for a log line */
    onHostChosen?: (host: string, selections: number) => void;
  } = {},
): Database {
  // No named prepared statements anywhere (neither here nor in Prisma's adapter), no session state:
  // the pool works behind PgBouncer in transaction mode.
  // A DATABASE_URL with several hosts (decision 045): each connection goes to the host that fits its
  // target_session_attrs (the primary, for read-write), looked for again when a connection to it fails.
  const failover = failoverPoolOptions(url, options.onHostChosen);
  const max = options.poolSize ?? DEFAULT_POOL_SIZE;
  const pool = failover
    ? new Pool({ connectionString: failover.connectionString, Client: failover.Client, max })
    : new Pool({ connectionString: url, max });
  // An idle client that loses its server (a PostgreSQL restart) must not crash the process; the
  // pool drops it and the next statement gets a fresh connection.
  pool.on('error', () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  const keys = options.secretKeys;
  const secrets = keys === 'locked' ? new LockedSecretBox() : new SecretBox(keys?.length ? keys : [DEVELOPMENT_SECRETS_KEY]);
  return Object.assign(prisma, { sql: pool, secrets });
}

/** Anything with pg's `query`: the pool, or a client holding a transaction (inTransaction). */
export interface Queryable {
  query: SqlPool['query'];
}

/** Where a repository function that may run inside inTransaction sends its statements: the client, or the pool. */
export const sqlOf = (db: Database | Queryable): Queryable => ('sql' in db ? db.sql : db);

/**
 * The one transaction helper: `fn` runs on one connection of the pool between BEGIN and COMMIT (ROLLBACK
 * if it throws). A use case that must do several writes at once (a monitor's run, an account with its first
 * key and credits) opens it; the repository functions it calls take the client (`Database | Queryable`).
 */
export async function inTransaction<T>(db: Database, fn: (client: Queryable) => Promise<T>): Promise<T> {
  const client = await db.sql.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
