import { refusedLoginReason } from '@leadgen/db';

/**
 * Any failure as one line saying what to do: never a stack, never a driver's or Prisma's dump
 * (which would quote source lines and internal hosts).
 */
const UNMIGRATED = new Set(['42P01', '42703', '42883', 'P2021', 'P2022']);
const NO_DATABASE = new Set(['3D000', 'P1003']);
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'P1001', 'P1002']);

function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (let e = error as { code?: unknown; cause?: unknown; errors?: unknown[] } | undefined, depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'string') codes.push(e.code);
    for (const inner of Array.isArray(e.errors) ? e.errors : []) codes.push(...codesOf(inner));
    e = e.cause as typeof e;
  }
  return codes;
}

export function failureLine(error: unknown): string {
  const codes = codesOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const refused = refusedLoginReason(error);
  if (refused) return `admin: PostgreSQL refused the login in DATABASE_URL (${refused}): fix its user or password`;
  if (codes.some((c) => NO_DATABASE.has(c)) || /database .* does not exist/i.test(message)) {
    return 'admin: the database in DATABASE_URL does not exist: run npm run db:migrate first (it creates and migrates it)';
  }
  if (codes.some((c) => UNMIGRATED.has(c)) || /(table|relation|column|function) .* does not exist/i.test(message)) {
    return 'admin: the database is not migrated: run npm run db:migrate first';
  }
  if (codes.some((c) => UNREACHABLE.has(c)) || /can't reach database server/i.test(message)) {
    return 'admin: PostgreSQL does not answer at DATABASE_URL: start it, or fix DATABASE_URL';
  }
  if (/ECONNREFUSED|Redis/i.test(message)) return 'admin: Redis does not answer at REDIS_URL: start it, or fix REDIS_URL';
  const firstLine =
    message
      .split('\n')
      .find((l) => l.trim() && !/invocation|^\s*\d+\s|→/.test(l))
      ?.trim() ?? 'unexpected error';
  return `admin: ${firstLine.slice(0, 300)}`;
}
