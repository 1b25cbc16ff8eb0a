import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDatabase, migrate, MIGRATIONS_DIR, readMigrations, schemaStatus, shippedSchema } from '../src';
import { checkSignatures, readPreviousRelease, SIGNATURES_SQL } from './previous-release';
import { queryOnce, scratchDatabases } from './scratch-databases';

// A function change the previous release cannot run beside is marked `--! breaking-change` on its migration
// (graphile-worker's mark): the signature check below then lets it through, the migrator refuses it where a
// release may be running, and a release that does not ship it reads it and stops being ready.

const previous = readPreviousRelease();

async function signaturesOf(url: string): Promise<string[]> {
  return (await queryOnce<{ signature: string }>(url, SIGNATURES_SQL)).map((row) => row.signature);
}

describe('function signatures the previous release calls', () => {
  it('when this schema is read, then every function the previous release calls answers with its signature', async () => {
    const check = checkSignatures(previous, await signaturesOf(process.env.DATABASE_URL!), readMigrations());
    expect(check).toEqual({ unmarked: [], marked: [], breakingMigrations: [] });
  });

  it('when a called function changes its result or arguments without the mark, then the check names it; with a marked migration since, it passes as breaking', async () => {
    const current = await signaturesOf(process.env.DATABASE_URL!);
    const readJob = current.find((signature) => signature.startsWith('read_job('))!;
    const changed = current.map((signature) =>
      signature === readJob
        ? signature.replace('leads_json text', 'leads jsonb')
        : signature.replace(/^start_job\(text, text, timestamp with time zone\)/, 'start_job(text, text)'),
    );
    const gone = [readJob, current.find((signature) => signature.startsWith('start_job('))!].sort();
    expect(checkSignatures(previous, changed, readMigrations()).unmarked.sort()).toEqual(gone);

    const marked = {
      name: '99990101000000_read_job_returns_jsonb',
      sql: '--! breaking-change\nSELECT 1;\n',
      checksum: '',
      breaking: true,
      onlineSteps: [],
    };
    expect(checkSignatures(previous, changed, [...readMigrations(), marked])).toEqual({
      unmarked: [],
      marked: expect.arrayContaining(gone),
      breakingMigrations: [marked.name],
    });
    // A mark older than the previous release says nothing of this change.
    const older = { ...marked, name: '20261122000001_older' };
    expect(checkSignatures(previous, changed, [...readMigrations(), older]).unmarked.sort()).toEqual(gone);
  });
});

describe('a migration marked --! breaking-change', () => {
  const BREAKING = '99990101000000_breaking_for_the_test';
  let dir: string;
  const databases = scratchDatabases('leadgen_brk');
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'leadgen-breaking-'));
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    cpSync(path.join(dir, readMigrations()[0]!.name), path.join(dir, BREAKING), { recursive: true });
    writeFileSync(path.join(dir, BREAKING, 'migration.sql'), '--! breaking-change: the test says so\nSELECT 1;\n');
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true });
    await databases.dropAll();
  }, 60_000);

  it('when it is read, then it is derived as breaking and no shipped migration is', () => {
    expect(
      readMigrations(dir)
        .filter((migration) => migration.breaking)
        .map((migration) => migration.name),
    ).toEqual([BREAKING]);
    expect(readMigrations().filter((migration) => migration.breaking)).toEqual([]);
  });

  it('when a database with migrations is migrated to it, then the migrator refuses unless allowed, and the release before it is no longer ready', async () => {
    const url = databases.next();
    await migrate(url);
    await expect(migrate(url, { migrationsDir: dir })).rejects.toThrow(
      /99990101000000_breaking_for_the_test is marked --! breaking-change/,
    );
    expect((await migrate(url, { migrationsDir: dir, allowBreaking: true })).applied).toEqual([BREAKING]);

    const db = createDatabase(url, { poolSize: 1 });
    try {
      // This build (the release before the breaking one) reads the mark the newer one left.
      const status = await schemaStatus(db, shippedSchema());
      expect(status).toMatchObject({ current: false, missing: [BREAKING] });
      expect(status.current || status.detail).toMatch(
        /ahead of this version by a breaking change \(99990101000000_breaking_for_the_test\)/,
      );
      // The release that ships it is ready.
      const shipping = { ...shippedSchema(), migrations: readMigrations(dir).map((migration) => migration.name) };
      expect(await schemaStatus(db, shipping)).toEqual({ current: true });
    } finally {
      await db.$disconnect();
    }
  });

  it('when an empty database is migrated, then it takes the breaking migration without being told: no release runs on it', async () => {
    expect((await migrate(databases.next(), { migrationsDir: dir })).applied).toContain(BREAKING);
  });
});
