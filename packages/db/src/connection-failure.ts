import { Client } from 'pg';
import { parsePostgresUrl } from '@leadgen/config';
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

/**
 * Refuses to start a long-running process whose DATABASE_URL PostgreSQL does not let in (issue 31, finding 16): one
 * connection at start; a refused login is thrown (the entry point prints one line naming DATABASE_URL), anything else
 * (PostgreSQL not answering yet) is left to readiness, which reports it until it answers.
 */
export async function assertDatabaseLogin(url: string): Promise<void> {
  // Each host of a multi-host URL (decision 045) must let the role in: a standby that refuses it would fail the failover.
  await Promise.all(parsePostgresUrl(url).hostUrls.map((hostUrl) => assertHostLogin(hostUrl)));
}

async function assertHostLogin(url: string): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    if (refusedLoginReason(error)) throw error;
    return;
  } finally {
    await client.end().catch(() => undefined);
  }
}
