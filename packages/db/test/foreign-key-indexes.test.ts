import { Client } from 'pg';
import { loadConfig } from '@leadgen/config';

/**
 * Every foreign key is followed by a delete of the row it points at (a cascade, a SET NULL, or the check that
 * nothing still points there): without an index that leads with its columns, each deleted parent row scans the
 * whole child table, every account's rows (issue 39: 99 s of an account's deletion went to webhook_deliveries(job_id)).
 */
const UNINDEXED_FOREIGN_KEYS = `
  SELECT c.conrelid::regclass::text || '(' || string_agg(a.attname, ',' ORDER BY k.ord) || ') -> ' || c.confrelid::regclass::text AS key
  FROM pg_constraint c
  CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
  WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace
    -- a partitioned table's key (leads, decision 046) is checked on each partition, whose copy of it is listed here too
    AND (SELECT r.relkind FROM pg_class r WHERE r.oid = c.conrelid) <> 'p'
    AND NOT EXISTS (
      -- a valid, whole-table index whose leading columns are the key's, in any order
      SELECT 1 FROM pg_index i
      WHERE i.indrelid = c.conrelid AND i.indisvalid AND i.indpred IS NULL
        AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey
        AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] <@ c.conkey
    )
  GROUP BY c.oid, c.conrelid, c.confrelid
  ORDER BY 1`;

describe('foreign keys', () => {
  const client = new Client({ connectionString: loadConfig(process.env).database.url });
  beforeAll(() => client.connect());
  afterAll(() => client.end());

  it('when the schema is read, then every foreign key has an index leading with its columns', async () => {
    const total = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace`,
    );
    expect(total.rows[0]!.n).toBeGreaterThan(20);
    const { rows } = await client.query<{ key: string }>(UNINDEXED_FOREIGN_KEYS);
    expect(rows.map((r) => r.key)).toEqual([]);
  });

  it('when a foreign key has no such index, then the catalog query names it, and not once it has one', async () => {
    // As the owner (the runtime role may not create tables), in a transaction rolled back: nothing stays.
    const owner = new Client({ connectionString: process.env.DATABASE_OWNER_URL });
    await owner.connect();
    try {
      await owner.query('BEGIN');
      await owner.query(
        'CREATE TABLE fk_probe (id TEXT PRIMARY KEY, job_id TEXT REFERENCES jobs(id), batch_id TEXT REFERENCES batches(id))',
      );
      await owner.query('CREATE INDEX fk_probe_batch ON fk_probe (batch_id, id)');
      const before = (await owner.query<{ key: string }>(UNINDEXED_FOREIGN_KEYS)).rows.map((r) => r.key);
      expect(before).toEqual(['fk_probe(job_id) -> jobs']);
      await owner.query('CREATE INDEX fk_probe_job ON fk_probe (job_id) WHERE job_id IS NOT NULL');
      expect((await owner.query<{ key: string }>(UNINDEXED_FOREIGN_KEYS)).rows.map((r) => r.key)).toEqual(['fk_probe(job_id) -> jobs']);
      await owner.query('CREATE INDEX fk_probe_job_whole ON fk_probe (job_id)');
      expect((await owner.query<{ key: string }>(UNINDEXED_FOREIGN_KEYS)).rows).toEqual([]);
    } finally {
      await owner.query('ROLLBACK');
      await owner.end();
    }
  });
});
