import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * prisma/functions: the current definition of every PostgreSQL function, trigger function and view,
 * one file each, named after it (docs/decisions/017-sql-as-code.md). The migrator applies them after
 * the versioned migrations as repeatable scripts: a file whose checksum changed is run again, an
 * unchanged one is skipped.
 */
export const FUNCTIONS_DIR =
  [
    path.resolve(__dirname, '../../../prisma/functions'), // sources: packages/db/src
    path.resolve(__dirname, '../prisma/functions'), // the build: dist/, beside prisma/ (also in the image)
  ].find((dir) => existsSync(dir)) ?? path.resolve(__dirname, '../../../prisma/functions');

export interface FunctionFile {
  /** the file's name without `.sql`: the function (or view) it defines */
  name: string;
  sql: string;
  checksum: string;
  /** other function files this one must follow (its `-- Depends on:` header line) */
  dependsOn: string[];
}

const DEPENDS_ON = /^--\s*Depends on:\s*(.+)$/im;

function readFunctionFile(dir: string, file: string): FunctionFile {
  const sql = readFileSync(path.join(dir, file), 'utf8');
  const dependsOn = (DEPENDS_ON.exec(sql)?.[1] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return { name: file.replace(/\.sql$/, ''), sql, checksum: createHash('sha256').update(sql).digest('hex'), dependsOn };
}

/**
 * The function files in the order they must be applied: by name, except that a file comes after every
 * file its `Depends on:` line names. A dependency on a file that does not exist, or a cycle, is refused.
 */
export function readFunctionFiles(dir = FUNCTIONS_DIR): FunctionFile[] {
  if (!existsSync(dir)) return [];
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => readFunctionFile(dir, file));
  const byName = new Map(files.map((file) => [file.name, file]));
  const ordered: FunctionFile[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (file: FunctionFile, chain: string[]): void => {
    if (state.get(file.name) === 'done') return;
    if (state.get(file.name) === 'visiting')
      throw new Error(`function files depend on each other in a cycle: ${[...chain, file.name].join(' → ')}`);
    state.set(file.name, 'visiting');
    for (const dependency of file.dependsOn) {
      const needed = byName.get(dependency);
      if (!needed) throw new Error(`function file ${file.name}.sql depends on ${dependency}, which has no file`);
      visit(needed, [...chain, file.name]);
    }
    state.set(file.name, 'done');
    ordered.push(file);
  };
  for (const file of files) visit(file, []);
  return ordered;
}

/** Where the migrator records each function file it applied, with the checksum of the text it ran. */
export const CREATE_FUNCTION_BOOKKEEPING = `CREATE TABLE IF NOT EXISTS "_function_files" (
  "name" TEXT NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "applied_at" TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY ("name", "checksum")
)`;
