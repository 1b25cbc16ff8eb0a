import type { Database } from './client';
import { readMigrations } from './migrator';

export type SchemaStatus = { current: true } | { current: false; missing: string[]; detail: string };

let shipped: string[] | null = null;

/** The migrations this build ships (prisma/migrations), read once: they do not change under a running process. */
export function shippedMigrations(): string[] {
  return (shipped ??= readMigrations().map((migration) => migration.name));
}

function isMissingTable(error: unknown): boolean {
  const text = `${(error as Error)?.message ?? ''} ${JSON.stringify((error as { meta?: unknown })?.meta ?? '')}`;
  return /42P01|_prisma_migrations.*does not exist|does not exist.*_prisma_migrations/s.test(text);
}

/**
 * Whether every migration this code expects is applied. One statement, which doubles as the
 * readiness ping of PostgreSQL. Migrations the database has and this build does not (a newer
 * release migrated first, as in a rolling deploy) do not make it behind: migrations only add.
 * Rejects when PostgreSQL does not answer.
 */
export async function schemaStatus(db: Database, expected: string[] = shippedMigrations()): Promise<SchemaStatus> {
  let applied: Set<string>;
  try {
    const rows = await db.$queryRawUnsafe<Array<{ migration_name: string }>>(
      'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    applied = new Set(rows.map((row) => row.migration_name));
  } catch (error) {
    if (!isMissingTable(error)) throw error;
    applied = new Set();
  }
  const missing = expected.filter((name) => !applied.has(name));
  if (missing.length === 0) return { current: true };
  return {
    current: false,
    missing,
    detail:
      `database schema is behind this version: ${missing.length} migration(s) not applied (${missing.join(', ')}); ` +
      'run the migrations (npm run db:migrate, or the image with the command `migrate`)',
  };
}
