import type { Database } from './client';
import { readFunctionFiles } from './function-files';
import { readMigrations } from './migrator';

export type SchemaStatus = { current: true } | { current: false; missing: string[]; detail: string };

/** What this build expects of the database: its migrations by name, its function files by checksum. */
export interface ShippedSchema {
  migrations: string[];
  functions: Array<{ name: string; checksum: string }>;
}

let shipped: ShippedSchema | null = null;

/** The migrations and function files this build ships, read once: they do not change under a running process. */
export function shippedSchema(): ShippedSchema {
  return (shipped ??= {
    migrations: readMigrations().map((migration) => migration.name),
    functions: readFunctionFiles().map(({ name, checksum }) => ({ name, checksum })),
  });
}

/** The migrations this build ships (prisma/migrations). */
export function shippedMigrations(): string[] {
  return shippedSchema().migrations;
}

function isMissingTable(error: unknown): boolean {
  const text = `${(error as Error)?.message ?? ''} ${JSON.stringify((error as { meta?: unknown })?.meta ?? '')}`;
  return /42P01|does not exist/s.test(text) && /_prisma_migrations|_function_files|_breaking_migrations/.test(text);
}

const APPLIED_WITH_BREAKING = `SELECT 'migration' AS kind, migration_name AS name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL
UNION ALL SELECT 'function', name || ':' || checksum FROM "_function_files"
UNION ALL SELECT 'breaking', migration_name FROM "_breaking_migrations"`;
const APPLIED = `SELECT 'migration' AS kind, migration_name AS name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL
UNION ALL SELECT 'function', name || ':' || checksum FROM "_function_files"`;
const APPLIED_MIGRATIONS_ONLY = `SELECT 'migration' AS kind, migration_name AS name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;

async function appliedNames(db: Database): Promise<Set<string>> {
  for (const statement of [APPLIED_WITH_BREAKING, APPLIED, APPLIED_MIGRATIONS_ONLY]) {
    try {
      const rows = await db.$queryRawUnsafe<Array<{ kind: string; name: string }>>(statement);
      return new Set(rows.map((row) => `${row.kind} ${row.name}`));
    } catch (error) {
      if (!isMissingTable(error)) throw error;
    }
  }
  return new Set();
}

/**
 * Whether every migration and function file this code expects is applied. One statement, which
 * doubles as the readiness ping of PostgreSQL. What the database has and this build does not (a newer
 * release migrated first, as in a rolling deploy) does not make it behind: migrations only add, and a
 * function file's text this build ships counts as applied if it was ever applied, since a newer
 * release replaces a function only compatibly (expand/contract, docs/decisions/017-sql-as-code.md),
 * except through a migration marked `--! breaking-change`: one this build does not ship makes it not
 * current either, so a release left running beside the one that broke it stops taking traffic.
 * Rejects when PostgreSQL does not answer.
 */
export async function schemaStatus(db: Database, expected: ShippedSchema | string[] = shippedSchema()): Promise<SchemaStatus> {
  const { migrations, functions } = Array.isArray(expected) ? { migrations: expected, functions: [] } : expected;
  const applied = await appliedNames(db);
  const missingMigrations = migrations.filter((name) => !applied.has(`migration ${name}`));
  const missingFunctions = functions
    .filter((file) => !applied.has(`function ${file.name}:${file.checksum}`))
    .map((file) => `${file.name}.sql`);
  const shippedMigrations = new Set(migrations);
  const newerBreaking = [...applied]
    .filter((entry) => entry.startsWith('breaking '))
    .map((entry) => entry.slice('breaking '.length))
    .filter((name) => !shippedMigrations.has(name));
  const missing = [...missingMigrations, ...missingFunctions, ...newerBreaking];
  if (missing.length === 0) return { current: true };
  if (newerBreaking.length > 0) {
    return {
      current: false,
      missing,
      detail: `database schema is ahead of this version by a breaking change (${newerBreaking.join(', ')}): this version cannot run beside the one that applied it`,
    };
  }
  const parts = [
    missingMigrations.length > 0 ? `${missingMigrations.length} migration(s) not applied (${missingMigrations.join(', ')})` : '',
    missingFunctions.length > 0 ? `${missingFunctions.length} function file(s) not applied (${missingFunctions.join(', ')})` : '',
  ].filter(Boolean);
  return {
    current: false,
    missing,
    detail: `database schema is behind this version: ${parts.join('; ')}; run the migrations (npm run db:migrate, or the image with the command \`migrate\`)`,
  };
}
