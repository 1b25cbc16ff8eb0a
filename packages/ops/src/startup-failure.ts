// An entry point's expected operational failures as one line naming the variable to fix, without a
// stack: the operator needs the variable, not our call frames. Anything else is left to the caller.

interface Failure {
  code?: unknown;
  port?: unknown;
  cause?: unknown;
  errors?: unknown[];
}

function codesOf(error: unknown): Array<{ code: string; port: number | null }> {
  const found: Array<{ code: string; port: number | null }> = [];
  for (let e = error as Failure | undefined, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    if (typeof e.code === 'string') found.push({ code: e.code, port: typeof e.port === 'number' ? e.port : null });
    for (const inner of Array.isArray(e.errors) ? e.errors : []) found.push(...codesOf(inner));
    e = e.cause as Failure | undefined;
  }
  return found;
}

const REFUSED_LOGIN = new Set(['28000', '28P01', 'P1000']);
const REFUSED_LOGIN_MESSAGE = /password authentication failed for user "[^"]*"|role "[^"]*" does not exist|no pg_hba\.conf entry[^\n]*/i;
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'EAI_AGAIN', 'P1001', 'P1002']);

/** The ports a process listens on, by the variable that sets each. */
export type ListenPorts = Record<string, number | null>;

/**
 * The one line for an expected start-up failure, or null for anything else: a port in use (naming the
 * variable whose port it is), PostgreSQL not answering (DATABASE_URL).
 */
export function startupFailureLine(processName: string, error: unknown, ports: ListenPorts): string | null {
  const codes = codesOf(error);
  const inUse = codes.find((c) => c.code === 'EADDRINUSE');
  if (inUse) {
    const variable = Object.entries(ports).find(([, port]) => port === inUse.port)?.[0] ?? Object.keys(ports).join(' or ');
    return `${processName}: port ${inUse.port ?? '?'} is in use: stop what listens there, or set ${variable} to a free port`;
  }
  if (codes.some((c) => c.code === 'EACCES' && c.port !== null))
    return `${processName}: no permission to listen on that port: set ${Object.keys(ports).join(' or ')} to one above 1023`;
  const message = error instanceof Error ? error.message : String(error);
  if (codes.some((c) => c.code === '3D000') || /database .* does not exist/i.test(message)) {
    return `${processName}: the database in DATABASE_URL does not exist: run npm run db:migrate (it creates and migrates it)`;
  }
  // A refused login (28000, 28P01, Prisma's P1000): the server's reason names the user, never the password.
  if (codes.some((c) => REFUSED_LOGIN.has(c.code)) || REFUSED_LOGIN_MESSAGE.test(message)) {
    const reason = /Message: `([^`]*)`/.exec(message)?.[1] ?? REFUSED_LOGIN_MESSAGE.exec(message)?.[0] ?? 'authentication failed';
    return `${processName}: PostgreSQL refused the login in DATABASE_URL (${reason.slice(0, 200)}): fix its user or password`;
  }
  if (codes.some((c) => UNREACHABLE.has(c.code)) || /can't reach database server/i.test(message)) {
    return `${processName}: PostgreSQL does not answer at DATABASE_URL: start it, or fix DATABASE_URL`;
  }
  return null;
}
