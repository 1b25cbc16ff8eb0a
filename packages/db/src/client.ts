import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/prisma/client';
import { failoverPoolOptions } from './host-selection';
import { ReadRouter, type ReadSide, type ReplicaVerdict } from './read-replica';
import { DEVELOPMENT_SECRETS_KEY, LockedSecretBox, SecretBox } from './secret-box';

/**
 * Prisma for the schema, models and cold paths; `sql`, the very pool Prisma's adapter draws from,
 * for the hot path's hand-written statements (docs/decisions/011-hot-path-sql.md). One bounded
 * pool per process: a connection is borrowed for a statement, never held while a job waits.
 */
export type Database = PrismaClient & {
  readonly sql: SqlPool;
  /**
   * Where reads that may be slightly old go (decision 047): listings, exports, the operator board. Without a read
   * URL, the primary's pool (`reads.sql === sql`); with one, the replica while its lag is within bound.
   */
  readonly reads: ReadSide;
  /** the read replica's router; null without a read URL */
  readonly replica: ReadRouter | null;
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
    /** DATABASE_READ_URL (decision 047): a streaming replica (or several hosts) for reads that may be slightly old */
    readUrl?: string | null;
    /** DATABASE_READ_MAX_LAG_MS: a replica lagging more is not read from */
    readMaxLagMs?: number;
    /** how often the replica's lag is measured at most (ms) */
    readSampleEveryMs?: number;
    /** the read router's verdict changed side (replica → primary or back), for a log line */
    onReadVerdict?: (verdict: ReplicaVerdict) => void;
  } = {},
): Database {
  // No named prepared statements anywhere (neither here nor in Prisma's adapter), no session state:
  // the pool works behind PgBouncer in transaction mode.
  // A DATABASE_URL with several hosts (decision 045): each connection goes to the host that fits its
  // target_session_attrs (the primary, for read-write), looked for again when a connection to it fails.
  const max = options.poolSize ?? DEFAULT_POOL_SIZE;
  const pool = poolFor(url, max, options.onHostChosen);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  const keys = options.secretKeys;
  const secrets = keys === 'locked' ? new LockedSecretBox() : new SecretBox(keys?.length ? keys : [DEVELOPMENT_SECRETS_KEY]);
  if (!options.readUrl) return Object.assign(prisma, { sql: pool, reads: { sql: pool }, replica: null, secrets });
  // The replica's pool, as big as the primary's; a replica that does not answer is given up on quickly (its reads then
  // go to the primary) unless the URL says otherwise (connect_timeout).
  const readPool = poolFor(options.readUrl, max, undefined, 2_000);
  const replica = new ReadRouter(pool, readPool, {
    maxLagMs: options.readMaxLagMs ?? DEFAULT_READ_MAX_LAG_MS,
    sampleEveryMs: options.readSampleEveryMs,
    onVerdict: options.onReadVerdict,
  });
  const database = Object.assign(prisma, { sql: pool, reads: { sql: replica }, replica, secrets });
  const disconnect = prisma.$disconnect.bind(prisma);
  return Object.assign(database, { $disconnect: () => Promise.all([disconnect(), readPool.end()]).then(() => undefined) });
}

export const DEFAULT_READ_MAX_LAG_MS = 5_000;

function poolFor(url: string, max: number, onHostChosen?: (host: string, selections: number) => void, connectTimeoutMs?: number): Pool {
  const failover = failoverPoolOptions(url, onHostChosen);
  const timeout = connectTimeoutMs !== undefined && !/[?&]connect_timeout=/.test(url) ? { connectionTimeoutMillis: connectTimeoutMs } : {};
  const pool = failover
    ? new Pool({ connectionString: failover.connectionString, Client: failover.Client, max, ...timeout })
    : new Pool({ connectionString: url, max, ...timeout });
  // An idle client that loses its server (a PostgreSQL restart) must not crash the process; the
  // pool drops it and the next statement gets a fresh connection.
  pool.on('error', () => undefined);
  return pool;
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
