import { createHash, createHmac, pbkdf2Sync, randomBytes, randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { parsePostgresUrl, type PostgresUrl } from '@leadgen/config';
import { CREATE_FUNCTION_BOOKKEEPING, FUNCTIONS_DIR, readFunctionFiles } from './function-files';

/**
 * Applies prisma/migrations to a database the way `prisma migrate deploy` does, without Prisma's
 * native schema engine (which cannot be downloaded everywhere: docs/decisions/002). It keeps
 * Prisma's own `_prisma_migrations` bookkeeping (same table, same sha256 checksums), so
 * `prisma migrate deploy` on a machine that has the engine sees the same migrations as applied.
 * After them it applies the function files (function-files.ts), which Prisma knows nothing of.
 */
export const MIGRATIONS_DIR = findMigrationsDir([
  path.resolve(__dirname, '../../../prisma/migrations'), // sources: packages/db/src
  path.resolve(__dirname, '../prisma/migrations'), // the build: dist/, beside prisma/ (also in the image)
]);

function findMigrationsDir(candidates: string[]): string {
  return candidates.find((dir) => existsSync(dir)) ?? candidates[0]!;
}

// The lock id Prisma's schema engine takes too, so our migrator and Prisma's never run at once.
const ADVISORY_LOCK_ID = 72707369;

const CREATE_BOOKKEEPING = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
  /** marked `--! breaking-change`: the release before the one that ships it cannot run beside it */
  breaking: boolean;
  /**
   * marked `--! online`: the sections before its last `--! commit` line, each run in a transaction of its own before
   * the main one (which then runs the whole file), so a long step (a VALIDATE that reads a big table) holds no lock
   * the service waits on. Each section must be idempotent and must do nothing on a database where what it needs
   * does not exist yet (the migrations before it may be pending): the main transaction does it then.
   */
  onlineSteps: string[];
}

// graphile-worker's mark (its migrations' `--! breaking-change` line, from which it derives the list of breaking
// migrations an older worker refuses to run beside: github.com/graphile/worker, src/migrate.ts): a migration that
// drops or changes what the previous release still calls (docs/decisions/017-sql-as-code.md) says so on a line of its own.
const BREAKING_CHANGE = /^--!\s*breaking-change\b/m;
const ONLINE = /^--!\s*online\b/m;
const COMMIT = /^--!\s*commit\b.*$/m;
const NO_TRANSACTION = /^--!\s*no-transaction\b/m;

/** An `--! online` migration's sections before its last `--! commit` (none for any other migration). */
export function onlineSteps(sql: string): string[] {
  if (!ONLINE.test(sql)) return [];
  return sql.split(COMMIT).slice(0, -1);
}

/**
 * An online section marked `--! no-transaction`: one statement that cannot run in a transaction (CREATE INDEX
 * CONCURRENTLY), run on its own, and only where the migrations before its own are all applied (on a database that
 * lacks them, its table may not exist yet: the main transaction then does the work, on a table that is new or small).
 * It is left out of the main transaction, so the sections after it must do (or check) its work there.
 */
export function outsideTransaction(section: string): boolean {
  return NO_TRANSACTION.test(section);
}

const STATEMENTS = /^--!\s*statements\b/m;

/**
 * A `--! no-transaction` section also marked `--! statements`: one query whose rows' first column are the statements
 * to run, each on its own and in order (CREATE INDEX CONCURRENTLY on each partition a table has, which no fixed text
 * can name: a partitioned table's index cannot be built concurrently, decision 053).
 */
export function generatesStatements(section: string): boolean {
  return STATEMENTS.test(section);
}

/** What the main transaction runs of a migration: the whole file, less its `--! no-transaction` sections. */
export function mainTransactionSql(sql: string): string {
  if (!ONLINE.test(sql) || !NO_TRANSACTION.test(sql)) return sql;
  return sql
    .split(COMMIT)
    .filter((section, index, all) => index === all.length - 1 || !outsideTransaction(section))
    .join('\n');
}

// Where the migrator records each breaking migration it applied, so that a release that does not ship it (the
// one before, still running in a rolling deploy) can read that it must not serve (schema-status.ts).
export const CREATE_BREAKING_BOOKKEEPING = `CREATE TABLE IF NOT EXISTS "_breaking_migrations" (
  "migration_name" VARCHAR(255) PRIMARY KEY,
  "applied_at" TIMESTAMPTZ NOT NULL DEFAULT now()
)`;

export function readMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return {
        name,
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
        breaking: BREAKING_CHANGE.test(sql),
        onlineSteps: onlineSteps(sql),
      };
    });
}

/** The database a URL names, and a connection to the server's `postgres` database to create or drop it. */
async function serverAdmin(databaseUrl: string): Promise<{ name: string; quoted: string; admin: Client }> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  return { name, quoted: `"${name.replace(/"/g, '""')}"`, admin };
}

/** Drops the database named in the URL if it exists, whoever is connected to it (for tests and benches). */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const { quoted, admin } = await serverAdmin(databaseUrl);
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/** Creates the database named in the URL when it does not exist (connecting to `postgres` to do so). */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const { name, quoted, admin } = await serverAdmin(databaseUrl);
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    await admin.query(`CREATE DATABASE ${quoted}`).catch((error: { code?: string }) => {
      if (error.code !== '42P04') throw error; // created meanwhile by another process
    });
    return true;
  } finally {
    await admin.end();
  }
}

export interface MigrateResult {
  createdDatabase: boolean;
  /** the versioned migrations applied now */
  applied: string[];
  /** the function files (re-)applied now: new or changed since they were last applied */
  functions: string[];
}

export interface MigrateOptions {
  migrationsDir?: string;
  functionsDir?: string;
  /**
   * Apply a migration marked `--! breaking-change` to a database that has migrations already, where the previous
   * release may still be running (the migrate command's `--allow-breaking`: once its pods are stopped). A database
   * without migrations takes one regardless: no release can be running on it.
   */
  allowBreaking?: boolean;
  /**
   * The role the processes connect as (DATABASE_URL's user when db:migrate runs as DATABASE_OWNER_URL): created
   * (LOGIN, with `password` if given) when it does not exist and the migrating role may create roles, then granted
   * what it needs and no more on every run (prisma/functions/grant_runtime_role.sql, docs/decisions/035).
   */
  runtimeRole?: RuntimeRole;
  /**
   * The runtime role's statement, lock and idle-in-transaction timeouts (DATABASE_*_TIMEOUT_MS), set as its defaults in
   * the database on every run (prisma/functions/runtime_role_timeouts.sql, decision 043); unset: left as they are.
   */
  runtimeTimeouts?: RuntimeTimeouts;
}

export interface RuntimeTimeouts {
  statementMs: number;
  lockMs: number;
  idleInTransactionMs: number;
}

export interface RuntimeRole {
  name: string;
  password: string | null;
}

/**
 * Brings a database to this build's schema: the versioned migrations it lacks, then every function file
 * that is new or changed since it was last applied (docs/decisions/017-sql-as-code.md), all in one
 * transaction, so a failure leaves the database as it was and a rolling deploy never sees half a release.
 */
export async function migrate(databaseUrl: string, options: MigrateOptions = {}): Promise<MigrateResult> {
  const { migrationsDir = MIGRATIONS_DIR, functionsDir = FUNCTIONS_DIR, allowBreaking = false } = options;
  const createdDatabase = await ensureDatabase(databaseUrl);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  const functions: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCK_ID]);
    await client.query(CREATE_BOOKKEEPING);
    await client.query(CREATE_FUNCTION_BOOKKEEPING);
    await client.query(CREATE_BREAKING_BOOKKEEPING);
    const done = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
    );
    const byName = new Map(done.rows.map((row) => [row.migration_name, row]));
    const pending = readMigrations(migrationsDir).filter((migration) => {
      const previous = byName.get(migration.name);
      if (previous?.finished_at) {
        if (previous.checksum !== migration.checksum) {
          throw new Error(`migration ${migration.name} was edited after it was applied (checksum differs)`);
        }
        return false;
      }
      if (previous) throw new Error(`migration ${migration.name} failed earlier; resolve it before migrating again`);
      return true;
    });
    const breaking = pending.filter((migration) => migration.breaking).map((migration) => migration.name);
    if (breaking.length > 0 && byName.size > 0 && !allowBreaking) {
      throw new Error(
        `migration ${breaking.join(', ')} is marked --! breaking-change: the release before it cannot run beside it. ` +
          'Stop that release first, then migrate with --allow-breaking (docs/decisions/017-sql-as-code.md)',
      );
    }
    const lastApplied = await client.query<{ name: string; checksum: string }>(
      'SELECT DISTINCT ON (name) name, checksum FROM "_function_files" ORDER BY name, applied_at DESC',
    );
    const appliedChecksum = new Map(lastApplied.rows.map((row) => [row.name, row.checksum]));
    const changed = readFunctionFiles(functionsDir).filter((file) => appliedChecksum.get(file.name) !== file.checksum);
    if (options.runtimeRole) await ensureRole(client, options.runtimeRole);
    if (pending.length === 0 && changed.length === 0) {
      if (options.runtimeRole) await grantRuntimeRole(client, options.runtimeRole.name, options.runtimeTimeouts);
      return { createdDatabase, applied, functions };
    }

    // An online migration's early sections, each committed on its own (MigrationFile.onlineSteps).
    for (const [position, migration] of pending.entries()) {
      for (const [index, section] of migration.onlineSteps.entries()) {
        if (outsideTransaction(section)) {
          if (position > 0) continue; // a migration before it is pending: the main transaction does its work
          try {
            if (generatesStatements(section)) {
              const generated = await client.query<Record<string, string>>(section);
              for (const row of generated.rows) await client.query(Object.values(row)[0]!);
            } else await client.query(section);
          } catch (error) {
            throw new Error(`migration ${migration.name}, online step ${index + 1} failed: ${(error as Error).message}`, { cause: error });
          }
          continue;
        }
        await client.query('BEGIN');
        try {
          await client.query(section);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${migration.name}, online step ${index + 1} failed: ${(error as Error).message}`, { cause: error });
        }
      }
    }

    await client.query('BEGIN');
    let step = '';
    try {
      for (const migration of pending) {
        step = `migration ${migration.name}`;
        const id = randomUUID();
        await client.query('INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())', [
          id,
          migration.checksum,
          migration.name,
        ]);
        await client.query(mainTransactionSql(migration.sql));
        await client.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id]);
        if (migration.breaking) await client.query('INSERT INTO "_breaking_migrations" (migration_name) VALUES ($1)', [migration.name]);
        applied.push(migration.name);
      }
      for (const file of changed) {
        step = `function file ${file.name}.sql`;
        await client.query(file.sql);
        await client.query(
          `INSERT INTO "_function_files" (name, checksum) VALUES ($1, $2)
           ON CONFLICT (name, checksum) DO UPDATE SET applied_at = clock_timestamp()`,
          [file.name, file.checksum],
        );
        functions.push(file.name);
      }
      if (options.runtimeRole) {
        step = `grants to the runtime role ${options.runtimeRole.name}`;
        await grantRuntimeRole(client, options.runtimeRole.name, options.runtimeTimeouts);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      applied.length = 0;
      functions.length = 0;
      throw new Error(`${step} failed: ${(error as Error).message}`, { cause: error });
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
  return { createdDatabase, applied, functions };
}

/**
 * Brings a database to the schema the release before `migration` left: every migration before it, and this build's
 * function files but `newFunctions` (those that release did not have yet). For the tests and the bench of a
 * migration that moves an existing database (decisions 046 and 053): seed it as that release wrote, then `migrate`.
 */
export async function migrateBefore(
  databaseUrl: string,
  migration: string,
  options: {
    newFunctions: string[];
    /** function files that release had in another text: recorded so, the migration's run applies them again */
    changedFunctions?: string[];
    runtimeRole?: RuntimeRole;
  },
): Promise<MigrateResult> {
  const migrations = mkdtempSync(path.join(tmpdir(), 'leadgen-before-'));
  const functions = mkdtempSync(path.join(tmpdir(), 'leadgen-before-fn-'));
  try {
    for (const m of readMigrations().filter((m) => m.name < migration))
      cpSync(path.join(MIGRATIONS_DIR, m.name), path.join(migrations, m.name), { recursive: true });
    for (const f of readFunctionFiles().filter((f) => !options.newFunctions.includes(f.name)))
      cpSync(path.join(FUNCTIONS_DIR, `${f.name}.sql`), path.join(functions, `${f.name}.sql`));
    const result = await migrate(databaseUrl, { migrationsDir: migrations, functionsDir: functions, runtimeRole: options.runtimeRole });
    if (options.changedFunctions?.length) {
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(`UPDATE "_function_files" SET checksum = 'the release before' WHERE name = ANY($1)`, [options.changedFunctions]);
      } finally {
        await client.end();
      }
    }
    return result;
  } finally {
    rmSync(migrations, { recursive: true });
    rmSync(functions, { recursive: true });
  }
}

async function grantRuntimeRole(client: Client, role: string, timeouts?: RuntimeTimeouts): Promise<void> {
  await client.query('SELECT grant_runtime_role($1)', [role]);
  if (timeouts)
    await client.query('SELECT runtime_role_timeouts($1, $2, $3, $4)', [
      role,
      timeouts.statementMs,
      timeouts.lockMs,
      timeouts.idleInTransactionMs,
    ]);
}

/**
 * Creates the runtime role when it does not exist: LOGIN, no other attribute, its password sent as a SCRAM
 * verifier (as psql's \password does), never as clear text a server log could keep. A role that exists is left
 * as it is (its password is the operator's). Roles are the cluster's: another database's migration may create
 * it at the same moment, which is fine.
 */
async function ensureRole(client: Client, role: RuntimeRole): Promise<void> {
  const found = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role.name]);
  if (found.rowCount) return;
  const quoted = `"${role.name.replace(/"/g, '""')}"`;
  const password = role.password ? ` PASSWORD '${scramVerifier(role.password)}'` : '';
  await client.query(`CREATE ROLE ${quoted} LOGIN${password}`).catch((error: { code?: string; message?: string }) => {
    if (error.code === '42710' || error.code === '23505') return; // created meanwhile
    if (error.code === '42501') {
      throw new Error(
        `the runtime role ${role.name} does not exist and the migrating role may not create it: create it (docs/operations.md: database roles)`,
        { cause: error },
      );
    }
    throw error;
  });
}

/** PostgreSQL's stored form of a SCRAM-SHA-256 password (RFC 5802, RFC 7677; PostgreSQL's scram_build_secret). */
export function scramVerifier(password: string, salt = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest('base64');
  const serverKey = createHmac('sha256', salted).update('Server Key').digest('base64');
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey}:${serverKey}`;
}

/**
 * The runtime role db:migrate grants: DATABASE_URL's user when the migration runs as another (DATABASE_OWNER_URL);
 * none when both URLs log in as one role (a laptop's single URL: that role owns the tables and is not restricted).
 * Both must name one database, or the grants would land where no process reads.
 */
export function runtimeRoleOf(migrationUrl: string, runtimeUrl: string): RuntimeRole | undefined {
  // Either may list several hosts (decision 045): one database, on servers they share.
  const [ownerHosts, runtimeHosts] = [parsePostgresUrl(migrationUrl), parsePostgresUrl(runtimeUrl)];
  const where = (url: PostgresUrl) => `${url.hosts.join(',')}/${url.database}`;
  if (ownerHosts.database !== runtimeHosts.database || !ownerHosts.hosts.some((host) => runtimeHosts.hosts.includes(host))) {
    throw new Error(`DATABASE_OWNER_URL names ${where(ownerHosts)}, DATABASE_URL ${where(runtimeHosts)}: they must name the same database`);
  }
  const owner = new URL(ownerHosts.hostUrls[0]!);
  const runtime = new URL(runtimeHosts.hostUrls[0]!);
  const name = decodeURIComponent(runtime.username);
  if (!name || name === decodeURIComponent(owner.username)) return undefined;
  return { name, password: runtime.password ? decodeURIComponent(runtime.password) : null };
}
