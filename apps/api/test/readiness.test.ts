import { Client } from 'pg';
import { createDatabase, ensureDatabase, migrate, schemaStatus, shippedMigrations, shippedSchema } from '@leadgen/db';
import { startWorld, type TestWorld } from '../../../test/harness';

// A database of this file's own, next to the suite's test database, that starts with no tables (as its owner: the
// runtime role would have no grants there until db:migrate, which this file applies bare).
const base = new URL(process.env.DATABASE_OWNER_URL!);
const name = `${base.pathname.slice(1)}_unmigrated`;
const url = Object.assign(new URL(base), { pathname: `/${name}` }).toString();

async function dropDatabase(): Promise<void> {
  const admin = new Client({ connectionString: Object.assign(new URL(base), { pathname: '/postgres' }).toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
}

describe('readiness against the database schema', () => {
  let world: TestWorld;

  beforeAll(async () => {
    await dropDatabase();
    await ensureDatabase(url);
    world = await startWorld({ worker: false, env: { DATABASE_URL: url } });
  });
  afterAll(async () => {
    await world.close();
    await dropDatabase();
  });

  it('when the database has no tables, then /readyz answers 503 saying the migrations are not applied', async () => {
    const res = await world.http.get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks.postgres).toBe('schema_behind');
    expect(res.body.detail).toContain('database schema is behind');
    expect(res.body.detail).toContain(shippedMigrations()[0]);
    expect((await world.api.readiness()).ready).toBe(false);
  });

  it('when the migrations are applied, then ready', async () => {
    await migrate(url);
    const res = await world.http.get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('when the code expects a migration the database lacks, then behind; one it does not know, then current', async () => {
    const db = createDatabase(url, { poolSize: 1 });
    try {
      const shipped = shippedMigrations();
      expect(await schemaStatus(db, [...shipped, '29990101000000_future'])).toMatchObject({
        current: false,
        missing: ['29990101000000_future'],
      });
      // A newer release migrated first (rolling deploy): this one still runs on the schema it knows.
      expect(await schemaStatus(db, shipped.slice(0, -1))).toEqual({ current: true });
    } finally {
      await db.$disconnect();
    }
  });

  it('when a function file of this build was never applied, then behind naming the file; a newer text of it applied later, then current', async () => {
    const db = createDatabase(url, { poolSize: 1 });
    try {
      const shipped = shippedSchema();
      const [first] = shipped.functions;
      if (!first) throw new Error('no function files shipped');
      const changed = {
        ...shipped,
        functions: [...shipped.functions.filter((f) => f !== first), { name: first.name, checksum: 'f'.repeat(64) }],
      };
      expect(await schemaStatus(db, changed)).toMatchObject({ current: false, missing: [`${first.name}.sql`] });
      await db.$executeRawUnsafe('DELETE FROM "_function_files" WHERE name = $1', first.name);
      const res = await world.http.get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body.checks.postgres).toBe('schema_behind');
      expect(res.body.detail).toContain(`${first.name}.sql`);
      // A newer release re-applied the file with another text after this one's: this one still counts it applied.
      await db.$executeRawUnsafe(
        'INSERT INTO "_function_files" (name, checksum, applied_at) VALUES ($1, $2, now() - interval \'1 hour\'), ($1, $3, now())',
        first.name,
        first.checksum,
        'e'.repeat(64),
      );
      expect(await schemaStatus(db, shipped)).toEqual({ current: true });
    } finally {
      await db.$disconnect();
    }
  });
});
