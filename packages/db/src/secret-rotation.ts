import { createDatabase, type Database } from './client';
import { SecretBox, secretContext } from './secret-box';

// The tables whose webhook secrets are sealed, and how each row is named (the sealed value's additional data).
const SEALED_TABLES = [
  { table: 'webhook_endpoints', key: 'id', context: secretContext.endpoint },
  { table: 'account_webhook_secrets', key: 'account_id', context: secretContext.accountDefault },
] as const;

const BATCH = 500;

export interface ResealReport {
  /** values sealed anew under the first key: plain ones and those under an older key */
  resealed: number;
  /** of those, values that were stored in plain text */
  wasPlain: number;
  /** values already under the first key */
  current: number;
}

/**
 * Seals every stored webhook secret (current and previous, endpoints and account defaults) under the
 * newest key: `secrets:rotate` after a key is added in front, and the step after the migrations that
 * seals what was stored in plain text before. Rows are read in batches by key and each is written back
 * only if it has not changed meanwhile (a rotation by its owner wins), so it runs beside live traffic,
 * and running it again finds nothing to do. Throws, having changed nothing of that row, on a value no
 * key opens.
 */
export async function resealWebhookSecrets(db: Database, options: { onlyPlain?: boolean } = {}): Promise<ResealReport> {
  const report: ResealReport = { resealed: 0, wasPlain: 0, current: 0 };
  for (const { table, key, context } of SEALED_TABLES) {
    let after = '';
    for (;;) {
      const { rows } = await db.sql.query<{ row_key: string; secret: string; previous_secret: string | null }>(
        `SELECT ${key} AS row_key, secret, previous_secret FROM ${table} WHERE ${key} > $1 ORDER BY ${key} LIMIT ${BATCH}`,
        [after],
      );
      if (rows.length === 0) break;
      after = rows.at(-1)!.row_key;
      for (const row of rows) {
        const wanted = (stored: string | null): boolean =>
          stored !== null && (options.onlyPlain ? !SecretBox.isSealed(stored) : !db.secrets.isCurrent(stored));
        const reseal = (stored: string | null) =>
          stored !== null && wanted(stored) ? db.secrets.seal(db.secrets.open(stored, context(row.row_key)), context(row.row_key)) : stored;
        const changes = [row.secret, row.previous_secret].filter(wanted);
        report.current += [row.secret, row.previous_secret].filter((s) => s !== null).length - changes.length;
        if (changes.length === 0) continue;
        const { rowCount } = await db.sql.query(
          `UPDATE ${table} SET secret = $2, previous_secret = $3 WHERE ${key} = $1 AND secret = $4 AND previous_secret IS NOT DISTINCT FROM $5`,
          [row.row_key, reseal(row.secret), reseal(row.previous_secret), row.secret, row.previous_secret],
        );
        if ((rowCount ?? 0) === 0) continue; // changed meanwhile: the change sealed under the newest key already
        report.resealed += changes.length;
        report.wasPlain += changes.filter((s) => !SecretBox.isSealed(s!)).length;
      }
    }
  }
  return report;
}

/**
 * The step `db:migrate` (and `npm start`) takes after the migrations: seals the webhook secrets stored in
 * plain text before sealing existed, under SECRETS_ENCRYPTION_KEY's first key. Returns how many it sealed.
 */
export async function sealPlainWebhookSecrets(databaseUrl: string, secretKeys: readonly Buffer[] | null): Promise<number> {
  const db = createDatabase(databaseUrl, { poolSize: 1, secretKeys });
  try {
    return (await resealWebhookSecrets(db, { onlyPlain: true })).wasPlain;
  } finally {
    await db.$disconnect();
  }
}
