import { loadConfigOrExit, parsePostgresUrl } from '@leadgen/config';
import { refusedLoginReason } from './connection-failure';
import { writableHostUrl } from './host-selection';
import { migrate, runtimeRoleOf } from './migrator';
import { sealPlainWebhookSecrets } from './secret-rotation';

// `npm run db:migrate`: applies prisma/migrations, then the changed prisma/functions files, as DATABASE_OWNER_URL
// (DATABASE_URL when unset), and grants DATABASE_URL's user what the processes need (decision 035).
// `--allow-breaking` applies a migration marked `--! breaking-change` once the previous release is stopped.
const config = loadConfigOrExit('migrate');
const migrationVariable = config.database.ownerUrl ? 'DATABASE_OWNER_URL' : 'DATABASE_URL';

async function main(): Promise<void> {
  const givenUrl = config.database.ownerUrl ?? config.database.url;
  const runtimeRole = runtimeRoleOf(givenUrl, config.database.url);
  // Several hosts (decision 045): the migration runs on the one that takes writes now.
  const migrationUrl = await writableHostUrl(givenUrl);
  const { statementTimeoutMs, lockTimeoutMs, idleInTransactionTimeoutMs } = config.database;
  const result = await migrate(migrationUrl, {
    allowBreaking: process.argv.includes('--allow-breaking'),
    runtimeRole,
    runtimeTimeouts: { statementMs: statementTimeoutMs, lockMs: lockTimeoutMs, idleInTransactionMs: idleInTransactionTimeoutMs },
  });
  // Webhook secrets written before they were sealed: sealed now, under the configured key (decision 019).
  const sealedSecrets = await sealPlainWebhookSecrets(migrationUrl, config.secrets.encryptionKeys);
  process.stdout.write(
    `${JSON.stringify({ database: parsePostgresUrl(config.database.url).database, createdDatabase: result.createdDatabase, applied: result.applied, functions: result.functions, runtimeRole: runtimeRole?.name ?? null, sealedSecrets })}\n`,
  );
}

main().catch((error: Error) => {
  const refused = refusedLoginReason(error);
  process.stderr.write(
    refused
      ? `db:migrate failed: PostgreSQL refused the login in ${migrationVariable} (${refused}): fix its user or password\n`
      : `db:migrate failed: ${error.message}\n`,
  );
  process.exit(1);
});
