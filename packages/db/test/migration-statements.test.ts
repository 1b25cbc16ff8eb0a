import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generatesStatements, migrate, MIGRATIONS_DIR, onlineSteps, outsideTransaction } from '../src';
import { queryOnce, scratchDatabases } from './scratch-databases';

// The migrator's `--! statements` mark (packages/db/src/migrator.ts): an online `--! no-transaction` section whose one
// query returns the statements to run, each on its own and in order, as migration 20261204000000 builds an index
// CONCURRENTLY on each partition a table has. Its own test, on a scratch database: the real migration's is
// webhook-excerpt-trigram.test.ts.

const NAME = '99990101000000_statements_for_the_test';
const migration = (generator: string) =>
  [
    '--! online',
    '--! no-transaction',
    '--! statements',
    generator,
    '--! commit',
    'CREATE INDEX IF NOT EXISTS "stmt_test_a_idx" ON "stmt_test" ("a");',
    'CREATE INDEX IF NOT EXISTS "stmt_test_b_idx" ON "stmt_test" ("b");',
    '',
  ].join('\n');
// Two CREATE INDEX CONCURRENTLY, which PostgreSQL refuses inside a transaction block (a multi-statement query is one).
const CONCURRENT = `SELECT format('CREATE INDEX CONCURRENTLY IF NOT EXISTS %I ON "stmt_test" (%I)', 'stmt_test_' || c || '_idx', c)
FROM unnest(ARRAY['a', 'b']) AS c ORDER BY c`;

describe('a migration section marked --! statements', () => {
  const dirs: string[] = [];
  const databases = scratchDatabases('leadgen_stmt');
  /** This build's migrations and the test's, last. */
  const withTestMigration = (sql: string): string => {
    const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-statements-'));
    dirs.push(dir);
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    mkdirSync(path.join(dir, NAME));
    writeFileSync(path.join(dir, NAME, 'migration.sql'), sql);
    return dir;
  };
  /** A database at this build's schema with the test's table and rows, the test's migration pending. */
  async function databaseBefore(): Promise<string> {
    const url = databases.next();
    await migrate(url);
    await queryOnce(url, 'CREATE TABLE "stmt_test" AS SELECT g AS "a", g % 7 AS "b" FROM generate_series(1, 1000) g');
    return url;
  }
  afterAll(async () => {
    for (const dir of dirs) rmSync(dir, { recursive: true });
    await databases.dropAll();
  }, 60_000);

  it('when its file is read, then the section is online, outside the main transaction and generates its statements', () => {
    const steps = onlineSteps(migration(CONCURRENT));
    expect(steps).toHaveLength(1);
    expect(outsideTransaction(steps[0]!)).toBe(true);
    expect(generatesStatements(steps[0]!)).toBe(true);
    expect(generatesStatements('--! no-transaction\nCREATE INDEX CONCURRENTLY x ON y (z)')).toBe(false);
  });

  it('when the migration runs where the ones before it are applied, then each generated statement runs on its own, in order', async () => {
    const url = await databaseBefore();
    expect((await migrate(url, { migrationsDir: withTestMigration(migration(CONCURRENT)) })).applied).toEqual([NAME]);
    const indexes = await queryOnce<{ name: string; valid: boolean }>(
      url,
      `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE i.indrelid = '"stmt_test"'::regclass ORDER BY 1`,
    );
    expect(indexes).toEqual([
      { name: 'stmt_test_a_idx', valid: true },
      { name: 'stmt_test_b_idx', valid: true },
    ]);
  }, 60_000);

  it('when a generated statement fails, then the migration stops there, names its step, and is not recorded as applied', async () => {
    const url = await databaseBefore();
    const failing = `SELECT s FROM (VALUES (1, 'CREATE INDEX CONCURRENTLY "stmt_test_a_idx" ON "stmt_test" ("a")'),
      (2, 'CREATE INDEX CONCURRENTLY "stmt_test_c_idx" ON "stmt_test" ("no_such_column")'),
      (3, 'CREATE INDEX CONCURRENTLY "stmt_test_b_idx" ON "stmt_test" ("b")')) AS v(n, s) ORDER BY n`;
    await expect(migrate(url, { migrationsDir: withTestMigration(migration(failing)) })).rejects.toThrow(
      `migration ${NAME}, online step 1 failed: column "no_such_column" does not exist`,
    );
    // the first ran (on its own: CONCURRENTLY), the third never did
    const names = await queryOnce<{ name: string }>(
      url,
      `SELECT indexname AS name FROM pg_indexes WHERE tablename = 'stmt_test' ORDER BY 1`,
    );
    expect(names.map((row) => row.name)).toEqual(['stmt_test_a_idx']);
    expect(await queryOnce(url, `SELECT 1 FROM "_prisma_migrations" WHERE migration_name = '${NAME}'`)).toEqual([]);
  }, 60_000);
});
