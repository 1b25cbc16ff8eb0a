import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { get_dmmf } from '@prisma/prisma-schema-wasm';
import { Client } from 'pg';
import { dropDatabase, migrate } from '../src/migrator';

/**
 * The migrations and schema.prisma must describe the same database. Prisma's schema engine (which
 * would diff them) cannot run here, so this applies every migration to a fresh database, reads the
 * database back, and compares it with what schema.prisma declares (read through Prisma's own
 * WASM schema parser): tables, columns with type, nullability and defaults, enums, keys, indexes
 * and foreign keys.
 */
const SCHEMA = path.resolve(__dirname, '../../../prisma/schema.prisma');

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'enum' | 'object';
  type: string;
  isRequired: boolean;
  isList: boolean;
  hasDefaultValue: boolean;
  nativeType?: [string, string[]] | null;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
}
interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}
interface Dmmf {
  datamodel: {
    models: DmmfModel[];
    enums: Array<{ name: string; dbName?: string | null; values: Array<{ name: string; dbName?: string | null }> }>;
    indexes: Array<{ model: string; type: 'id' | 'unique' | 'normal' | 'fulltext'; fields: Array<{ name: string }> }>;
  };
}

function declared() {
  const dmmf = JSON.parse(get_dmmf(JSON.stringify({ prismaSchema: [['schema.prisma', readFileSync(SCHEMA, 'utf8')]] }))) as Dmmf;
  const { models, enums, indexes } = dmmf.datamodel;
  const table = (model: string) => {
    const m = models.find((x) => x.name === model)!;
    return m.dbName ?? m.name;
  };
  const column = (model: string, field: string) => {
    const f = models.find((x) => x.name === model)!.fields.find((x) => x.name === field)!;
    return f.dbName ?? f.name;
  };
  const scalarType = (f: DmmfField): string => {
    if (f.kind === 'enum') return f.type;
    const native = f.nativeType?.[0];
    switch (f.type) {
      case 'String':
        return 'text';
      case 'Int':
        return 'int4';
      case 'BigInt':
        return 'int8';
      case 'Boolean':
        return 'bool';
      case 'Json':
        return 'jsonb';
      case 'DateTime':
        return native === 'Timestamptz' ? `timestamptz(${f.nativeType?.[1][0] ?? 6})` : 'timestamp(3)';
      default:
        return `unmapped ${f.type}`;
    }
  };
  const columns = models.flatMap((m) =>
    m.fields
      .filter((f) => f.kind !== 'object')
      .map(
        (f) =>
          // A list is PostgreSQL's array of the type, which information_schema names with a leading underscore (_text).
          `${table(m.name)}.${f.dbName ?? f.name} ${f.isList ? '_' : ''}${scalarType(f)} ${f.isRequired || f.isList ? 'not null' : 'null'}${f.hasDefaultValue ? ' default' : ''}`,
      ),
  );
  const keys = indexes
    .filter((i) => i.type !== 'fulltext')
    .map((i) => `${i.type === 'id' ? 'primary' : i.type} ${table(i.model)}(${i.fields.map((f) => column(i.model, f.name)).join(',')})`);
  const foreignKeys = models.flatMap((m) =>
    m.fields
      .filter((f) => f.kind === 'object' && (f.relationFromFields?.length ?? 0) > 0)
      .map(
        (f) =>
          `${table(m.name)}(${f.relationFromFields!.map((c) => column(m.name, c)).join(',')}) -> ${table(f.type)}(${f
            .relationToFields!.map((c) => column(f.type, c))
            .join(',')}) on delete ${(f.relationOnDelete ?? 'NoAction').toLowerCase()}`,
      ),
  );
  const enumValues = enums.map((e) => `${e.dbName ?? e.name}: ${e.values.map((v) => v.dbName ?? v.name).join(',')}`);
  return { columns: columns.sort(), keys: keys.sort(), foreignKeys: foreignKeys.sort(), enums: enumValues.sort() };
}

async function actual(client: Client) {
  const columns = await client.query<{ line: string }>(`
    SELECT c.table_name || '.' || c.column_name || ' ' ||
      CASE WHEN c.data_type = 'USER-DEFINED' THEN c.udt_name
           WHEN c.udt_name IN ('timestamptz', 'timestamp') THEN c.udt_name || '(' || c.datetime_precision || ')'
           ELSE c.udt_name END ||
      CASE WHEN c.is_nullable = 'NO' THEN ' not null' ELSE ' null' END ||
      CASE WHEN c.column_default IS NOT NULL THEN ' default' ELSE '' END AS line
    FROM information_schema.columns c
    WHERE c.table_schema = 'public' AND c.table_name NOT IN ('_prisma_migrations', '_function_files', '_breaking_migrations')
      -- a partition is its parent's (leads, decision 046)
      AND NOT EXISTS (SELECT 1 FROM pg_class p WHERE p.relname = c.table_name AND p.relnamespace = 'public'::regnamespace AND p.relispartition)`);
  // A partitioned table's keys are the ones every one of its partitions has, under the parent's name (leads,
  // audit_events: their keys cannot be the parent's, decisions 046 and 053), and its indexes are the parent's own
  // (PostgreSQL builds them on every partition); a partition's own are not listed apart.
  const keys = await client.query<{ line: string }>(`
    WITH indexes AS (
      SELECT CASE WHEN ix.indisprimary THEN 'primary' WHEN ix.indisunique THEN 'unique' ELSE 'normal' END || ' ' AS kind,
        COALESCE(parent.relname, t.relname) AS table_name, t.relname AS own_table,
        '(' || string_agg(a.attname, ',' ORDER BY k.ord) || ')' AS columns
      FROM pg_index ix
      JOIN pg_class t ON t.oid = ix.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
      LEFT JOIN pg_inherits i ON t.relispartition AND i.inhrelid = t.oid
      LEFT JOIN pg_class parent ON parent.oid = i.inhparent
      CROSS JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
      JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE n.nspname = 'public' AND t.relname NOT IN ('_prisma_migrations', '_function_files', '_breaking_migrations')
        AND NOT EXISTS (SELECT 1 FROM pg_inherits pi WHERE pi.inhrelid = ix.indexrelid) -- a partitioned index's copy
      GROUP BY ix.indexrelid, ix.indisprimary, ix.indisunique, t.relname, parent.relname
    )
    SELECT kind || table_name || columns AS line FROM indexes
    GROUP BY kind, table_name, columns
    HAVING bool_or(own_table = table_name) OR count(DISTINCT own_table) = (
      SELECT GREATEST(count(*), 1) FROM pg_inherits i WHERE i.inhparent = (SELECT oid FROM pg_class WHERE relname = table_name AND relnamespace = 'public'::regnamespace))`);
  // A partitioned table's foreign keys are its own, and those every one of its partitions has, under the parent's name
  // and pointing at the parent of the partition they point at (webhook_attempts': each week's, to that week's
  // deliveries, decision 053).
  const foreignKeys = await client.query<{ line: string }>(`
    WITH fks AS (
      SELECT COALESCE(parent.relname, src.relname) AS table_name, src.relname AS own_table,
        '(' || string_agg(sa.attname, ',' ORDER BY k.ord) || ') -> ' || COALESCE(dst_parent.relname, dst.relname) || '(' ||
        string_agg(da.attname, ',' ORDER BY k.ord) || ') on delete ' ||
        CASE con.confdeltype WHEN 'c' THEN 'cascade' WHEN 'r' THEN 'restrict' WHEN 'n' THEN 'setnull' WHEN 'd' THEN 'setdefault' ELSE 'noaction' END AS rest
      FROM pg_constraint con
      JOIN pg_class src ON src.oid = con.conrelid
      JOIN pg_class dst ON dst.oid = con.confrelid
      LEFT JOIN pg_inherits i ON src.relispartition AND i.inhrelid = src.oid
      LEFT JOIN pg_class parent ON parent.oid = i.inhparent
      LEFT JOIN pg_inherits di ON dst.relispartition AND di.inhrelid = dst.oid
      LEFT JOIN pg_class dst_parent ON dst_parent.oid = di.inhparent
      CROSS JOIN LATERAL unnest(con.conkey, con.confkey) WITH ORDINALITY AS k(src_att, dst_att, ord)
      JOIN pg_attribute sa ON sa.attrelid = src.oid AND sa.attnum = k.src_att
      JOIN pg_attribute da ON da.attrelid = dst.oid AND da.attnum = k.dst_att
      WHERE con.contype = 'f' AND con.conparentid = 0 -- a partition's copy of its parent's
      GROUP BY con.oid, src.relname, parent.relname, dst.relname, dst_parent.relname, con.confdeltype
    )
    SELECT table_name || rest AS line FROM fks
    GROUP BY table_name, rest
    HAVING bool_or(own_table = table_name) OR count(DISTINCT own_table) = (
      SELECT count(*) FROM pg_inherits i
      WHERE i.inhparent = (SELECT oid FROM pg_class WHERE relname = table_name AND relnamespace = 'public'::regnamespace))`);
  const enums = await client.query<{ line: string }>(`
    SELECT t.typname || ': ' || string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) AS line
    FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
    WHERE n.nspname = 'public' GROUP BY t.typname`);
  const lines = (r: { rows: Array<{ line: string }> }) => r.rows.map((x) => x.line).sort();
  return { columns: lines(columns), keys: lines(keys), foreignKeys: lines(foreignKeys), enums: lines(enums) };
}

describe('prisma/migrations and prisma/schema.prisma', () => {
  const base = new URL(process.env.DATABASE_OWNER_URL!);
  const name = `leadgen_drift_${randomBytes(4).toString('hex')}`;
  const url = new URL(base);
  url.pathname = `/${name}`;

  afterAll(() => dropDatabase(url.toString()));

  it('when every migration is applied to an empty database, then it is exactly the database schema.prisma declares', async () => {
    const result = await migrate(url.toString());
    expect(result.createdDatabase).toBe(true);
    expect(result.applied.length).toBeGreaterThan(0);
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    try {
      expect(await actual(client)).toEqual(declared());
    } finally {
      await client.end();
    }
  });

  it('when migrate runs again, then it applies nothing and keeps Prisma-compatible bookkeeping', async () => {
    const again = await migrate(url.toString());
    expect(again).toEqual({ createdDatabase: false, applied: [], functions: [] });
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    try {
      const rows = await client.query('SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations"');
      expect(rows.rows.length).toBeGreaterThan(0);
      for (const row of rows.rows) {
        expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
        expect(row.finished_at).not.toBeNull();
        expect(row.applied_steps_count).toBe(1);
      }
    } finally {
      await client.end();
    }
  });
});
