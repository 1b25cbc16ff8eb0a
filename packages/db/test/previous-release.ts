import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { MigrationFile } from '../src';

/**
 * The previous release as packages/db/test/fixtures/previous-release-statements.sql records it: the
 * statements its pods send, the signature of each function they call as its schema had it, and its last
 * migration (docs/decisions/017-sql-as-code.md, expand/contract).
 */
export interface PreviousRelease {
  lastMigration: string;
  statements: Map<string, { sql: string; calls: string[] }>;
}

const FIXTURE = path.join(__dirname, 'fixtures/previous-release-statements.sql');

export function readPreviousRelease(text = readFileSync(FIXTURE, 'utf8')): PreviousRelease {
  const lastMigration = /^-- Last migration: (\S+)$/m.exec(text)?.[1];
  if (!lastMigration) throw new Error('the fixture names no last migration');
  const statements = new Map(
    text
      .split(/^-- name: /m)
      .slice(1)
      .map((block) => {
        const [name, ...lines] = block.split('\n');
        const calls = lines.filter((line) => line.startsWith('-- calls: ')).map((line) => line.slice('-- calls: '.length));
        const sql = lines
          .filter((line) => !line.startsWith('-- calls: '))
          .join('\n')
          .trim();
        return [name!.trim(), { sql, calls }] as const;
      }),
  );
  return { lastMigration, statements };
}

/** Every function of the public schema as `name(argument types) -> result`, the fixture's form. */
export const SIGNATURES_SQL = `SELECT p.proname || '(' || oidvectortypes(p.proargtypes) || ') -> ' || pg_get_function_result(p.oid) AS signature
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'`;

export interface SignatureCheck {
  /** signatures the previous release calls that this schema lacks, with no breaking migration to say so */
  unmarked: string[];
  /** the same, when a migration since the previous release is marked `--! breaking-change` */
  marked: string[];
  /** the breaking migrations since the previous release */
  breakingMigrations: string[];
}

/**
 * A signature is a function's argument types and its result (column names included: callers select them by
 * name); argument names are left out (every caller passes arguments by position). Any call of the previous
 * release whose signature this schema lacks is incompatible: it is allowed only when a migration since that
 * release carries `--! breaking-change`, which makes the migrator refuse it beside a running release and that
 * release unready (migrator.ts, schema-status.ts).
 */
export function checkSignatures(previous: PreviousRelease, current: string[], migrations: MigrationFile[]): SignatureCheck {
  const now = new Set(current);
  const gone = [...new Set([...previous.statements.values()].flatMap((statement) => statement.calls))].filter((call) => !now.has(call));
  const breakingMigrations = migrations
    .filter((migration) => migration.name > previous.lastMigration && migration.breaking)
    .map((migration) => migration.name);
  return breakingMigrations.length > 0
    ? { unmarked: [], marked: gone, breakingMigrations }
    : { unmarked: gone, marked: [], breakingMigrations };
}
