import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { dropDatabase, FUNCTIONS_DIR, migrate, MIGRATIONS_DIR, readMigrations } from '../src';
import { scratchDatabaseUrls } from '../../../test/runtime-role';

// Migration 20261202100000 on a database the release before left with two pending objections for one domain (two
// requests that raced): the online section folds them into the newest, the index is built CONCURRENTLY outside the
// main transaction, and a second pending objection for the subject is refused from then on (emails excepted).
const MIGRATION = '20261202100000_one_pending_objection_per_subject';

describe('one pending objection per subject: the migration of a database that has duplicates', () => {
  const scratch = scratchDatabaseUrls(`${new URL(process.env.DATABASE_URL!).pathname.slice(1)}_objidx_${randomBytes(3).toString('hex')}`);
  const dirs: string[] = [];
  afterAll(async () => {
    await dropDatabase(scratch.ownerUrl);
    for (const dir of dirs) rmSync(dir, { recursive: true });
  });

  it('when it runs, then the newest pending objection of each domain is kept, the index is valid, and a second pending one is refused', async () => {
    const before = mkdtempSync(path.join(tmpdir(), 'leadgen-before-objidx-'));
    dirs.push(before);
    for (const migration of readMigrations().filter((m) => m.name < MIGRATION))
      cpSync(path.join(MIGRATIONS_DIR, migration.name), path.join(before, migration.name), { recursive: true });
    await migrate(scratch.ownerUrl, { migrationsDir: before, functionsDir: FUNCTIONS_DIR });
    const client = new Client({ connectionString: scratch.ownerUrl });
    await client.connect();
    try {
      const insert = (id: string, kind: string, value: string, minutesAgo: number, status = 'pending') =>
        client.query(
          `INSERT INTO objections (id, kind, value, status, expires_at, created_at)
           VALUES ($1, $2::"SuppressionKind", $3, $4, now() + interval '1 day', now() - make_interval(mins => $5))`,
          [id, kind, value, status, minutesAgo],
        );
      await insert('obj_old', 'domain', 'raced.test', 2);
      await insert('obj_new', 'domain', 'raced.test', 1);
      await insert('obj_applied', 'domain', 'raced.test', 60, 'applied');
      await insert('obj_mail1', 'email', 'a@raced.test', 2);
      await insert('obj_mail2', 'email', 'a@raced.test', 1);

      const result = await migrate(scratch.ownerUrl, { functionsDir: FUNCTIONS_DIR });
      expect(result.applied[0]).toBe(MIGRATION);
      const ids = await client.query<{ id: string }>(`SELECT id FROM objections ORDER BY id`);
      expect(ids.rows.map((r) => r.id)).toEqual(['obj_applied', 'obj_mail1', 'obj_mail2', 'obj_new']);
      const index = await client.query(
        `SELECT indisvalid, indisunique FROM pg_index WHERE indexrelid = 'objections_pending_subject_key'::regclass`,
      );
      expect(index.rows).toEqual([{ indisvalid: true, indisunique: true }]);
      await expect(insert('obj_third', 'domain', 'raced.test', 0)).rejects.toMatchObject({ code: '23505' });
      await insert('obj_mail3', 'email', 'a@raced.test', 0); // an email's requests are rows of their own
    } finally {
      await client.end();
    }
  });
});
