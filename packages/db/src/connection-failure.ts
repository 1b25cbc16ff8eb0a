/**
 * PostgreSQL refused the login DATABASE_URL carries (a role that does not exist, a wrong password, no
 * pg_hba.conf entry): the server's own reason, for a line that names the variable; null for anything else.
 * The error comes from pg (code 28000 / 28P01) or wrapped by Prisma ("Raw query failed. Code: `28000`...").
 */
const LOGIN_CODES = /\b(28000|28P01|P1000)\b/;
const LOGIN_MESSAGES = /password authentication failed|role "[^"]*" does not exist|no pg_hba\.conf entry|authentication failed/i;

export function refusedLoginReason(error: unknown): string | null {
  for (let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    const message = typeof e.message === 'string' ? e.message : '';
    if ((typeof e.code === 'string' && LOGIN_CODES.test(e.code)) || LOGIN_CODES.test(message) || LOGIN_MESSAGES.test(message)) {
      const reason = /Message: `([^`]*)`/.exec(message)?.[1] ?? message.split('\n')[0]!;
      return reason.slice(0, 200);
    }
    e = e.cause as typeof e;
  }
  return null;
}
