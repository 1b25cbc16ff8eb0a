import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dropDatabase, FUNCTIONS_DIR, migrate, MIGRATIONS_DIR, readFunctionFiles, readMigrations } from '../src';
import { queryOnce, scratchDatabases } from './scratch-databases';

// SQL as code (docs/decisions/017-sql-as-code.md): every function's body in one file of prisma/functions,
// applied after the migrations as a repeatable script.

// The last migration written before function files existed; every later one holds tables and data only.
const LAST_MIGRATION_WITH_FUNCTIONS = '20261122170000_webhooks';
// (a migration's own pg_temp helper lives only as long as its session: not a schema object)
const DEFINES_CODE = /\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|PROCEDURE|TRIGGER|(?:RECURSIVE\s+)?VIEW)\s+(?!\s|pg_temp\.)/i;
const DEFINED_NAMES = /\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|PROCEDURE|(?:RECURSIVE\s+)?VIEW)\s+(?:public\.)?"?(\w+)"?/gi;

const databases = scratchDatabases('leadgen_fn');
afterAll(() => databases.dropAll(), 120_000);

/** The whole schema as pg_dump writes it (functions' full definitions included), without the migrators' own bookkeeping. */
function schemaOf(url: string): string {
  return execFileSync(
    'pg_dump',
    [
      '--schema-only',
      '--no-owner',
      '--no-privileges',
      '--exclude-table=_prisma_migrations',
      '--exclude-table=_function_files',
      '--exclude-table=_breaking_migrations',
      url,
    ],
    {
      encoding: 'utf8',
    },
  )
    .split('\n')
    .filter((line) => !line.startsWith('-- Dumped') && !line.startsWith('\\restrict') && !line.startsWith('\\unrestrict'))
    .join('\n');
}

/** A migrations folder holding copies of the first `count` migrations only. */
function migrationsUpTo(count: number): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-migrations-'));
  for (const migration of readMigrations().slice(0, count))
    cpSync(path.join(MIGRATIONS_DIR, migration.name), path.join(dir, migration.name), { recursive: true });
  return dir;
}

describe('function files', () => {
  it('when the schema is read, then every function and view is written in exactly one file named after it, and no later migration defines one', async () => {
    const files = readFunctionFiles();
    const definedIn = new Map<string, string[]>();
    for (const file of files) {
      const names = [...file.sql.matchAll(DEFINED_NAMES)].map((match) => match[1]!);
      expect({ file: file.name, defines: [...new Set(names)] }).toEqual({ file: file.name, defines: [file.name] });
      for (const name of names) definedIn.set(name, [...new Set([...(definedIn.get(name) ?? []), file.name])]);
      expect(file.sql).toMatch(/^-- \w+: /);
      for (const heading of ['Called by:', 'Locks:', 'Guarantees:'])
        expect({ file: file.name, heading, present: file.sql.includes(`-- ${heading}`) }).toMatchObject({ present: true });
    }
    const inDatabase = await queryOnce<{ name: string }>(
      process.env.DATABASE_URL!,
      `SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
       UNION SELECT viewname FROM pg_views WHERE schemaname = 'public'`,
    );
    expect(inDatabase.map((row) => row.name).sort()).toEqual([...definedIn.keys()].sort());

    const later = readMigrations().filter((migration) => migration.name > LAST_MIGRATION_WITH_FUNCTIONS);
    for (const migration of later)
      expect({ migration: migration.name, definesCode: DEFINES_CODE.test(migration.sql) }).toEqual({
        migration: migration.name,
        definesCode: false,
      });
  });

  it('when an empty database and a database left at each earlier migration are migrated, then their schemas are the same', async () => {
    const fromEmpty = databases.next();
    await migrate(fromEmpty);
    const expected = schemaOf(fromEmpty);
    expect(expected).toContain('CREATE FUNCTION public.commit_page');

    const empty = mkdtempSync(path.join(tmpdir(), 'leadgen-no-functions-'));
    for (let count = 1; count <= readMigrations().length; count += 1) {
      const url = databases.next();
      const earlier = migrationsUpTo(count);
      try {
        // As an earlier release left it: those migrations only, before function files existed.
        await migrate(url, { migrationsDir: earlier, functionsDir: empty });
      } finally {
        rmSync(earlier, { recursive: true });
      }
      const result = await migrate(url);
      expect(result.functions.length).toBe(readFunctionFiles().length);
      expect({ leftAt: count, schema: schemaOf(url) }).toEqual({ leftAt: count, schema: expected });
      await dropDatabase(url);
    }
    rmSync(empty, { recursive: true });
  }, 300_000); // a database per migration (22), each migrated twice: minutes on a loaded 2-core machine

  it('when a function file changes, then only it is applied again, and a file applied already is skipped', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-functions-'));
    cpSync(FUNCTIONS_DIR, dir, { recursive: true });
    const url = databases.next();
    try {
      const first = await migrate(url, { functionsDir: dir });
      expect(first.functions).toEqual(readFunctionFiles(dir).map((file) => file.name));
      expect((await migrate(url, { functionsDir: dir })).functions).toEqual([]);

      const file = path.join(dir, 'start_job.sql');
      writeFileSync(file, readFileSync(file, 'utf8').replace('BEGIN\n', 'BEGIN\n  -- changed by the test\n'));
      expect(await migrate(url, { functionsDir: dir })).toEqual({ createdDatabase: false, applied: [], functions: ['start_job'] });
      const [definition] = await queryOnce<{ def: string }>(
        url,
        `SELECT pg_get_functiondef('start_job(text, text, timestamptz)'::regprocedure) AS def`,
      );
      expect(definition!.def).toContain('-- changed by the test');
      expect((await migrate(url, { functionsDir: dir })).functions).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('when a function file fails, then nothing of that run is applied: not the file, nor the migrations before it', async () => {
    const url = databases.next();
    const earlier = migrationsUpTo(readMigrations().length - 1);
    const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-functions-'));
    try {
      await migrate(url, { migrationsDir: earlier, functionsDir: dir });
      cpSync(FUNCTIONS_DIR, dir, { recursive: true });
      writeFileSync(
        path.join(dir, 'zz_broken.sql'),
        '-- zz_broken: a file that does not parse.\nCREATE OR REPLACE FUNCTION zz_broken( AS $$ $$;\n',
      );
      await expect(migrate(url, { functionsDir: dir })).rejects.toThrow(/function file zz_broken\.sql failed/);
      const migrations = await queryOnce<{ n: number }>(url, 'SELECT count(*)::int AS n FROM "_prisma_migrations"');
      expect(migrations[0]!.n).toBe(readMigrations().length - 1);
      expect(await queryOnce(url, 'SELECT * FROM "_function_files"')).toEqual([]);
    } finally {
      rmSync(earlier, { recursive: true });
      rmSync(dir, { recursive: true });
    }
  });

  it('when files name what they depend on, then they are applied after it; a cycle or a missing file is refused', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-functions-'));
    const write = (name: string, dependsOn?: string) =>
      writeFileSync(path.join(dir, `${name}.sql`), `-- ${name}: test.\n${dependsOn ? `-- Depends on: ${dependsOn}\n` : ''}SELECT 1;\n`);
    try {
      write('a', 'c');
      write('b');
      write('c', 'd');
      write('d');
      expect(readFunctionFiles(dir).map((file) => file.name)).toEqual(['d', 'c', 'a', 'b']);
      write('d', 'a');
      expect(() => readFunctionFiles(dir)).toThrow(/cycle: a → c → d → a/);
      write('d', 'nowhere');
      expect(() => readFunctionFiles(dir)).toThrow(/d\.sql depends on nowhere, which has no file/);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});
