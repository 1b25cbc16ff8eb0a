import { loadConfigOrExit } from '@leadgen/config';
import { refusedLoginReason } from './connection-failure';
import { migrate } from './migrator';
import { sealPlainWebhookSecrets } from './secret-rotation';

// `npm run db:migrate`: applies prisma/migrations, then the changed prisma/functions files, to DATABASE_URL.
// `--allow-breaking` applies a migration marked `--! breaking-change` once the previous release is stopped.
async function main(): Promise<void> {
  const config = loadConfigOrExit('migrate');
  const result = await migrate(config.database.url, { allowBreaking: process.argv.includes('--allow-breaking') });
  // Webhook secrets written before they were sealed: sealed now, under the configured key (decision 019).
  const sealedSecrets = await sealPlainWebhookSecrets(config.database.url, config.secrets.encryptionKeys);
  const target = new URL(config.database.url);
  target.password = '';
  process.stdout.write(
    `${JSON.stringify({ database: target.pathname.slice(1), createdDatabase: result.createdDatabase, applied: result.applied, functions: result.functions, sealedSecrets })}\n`,
  );
}

main().catch((error: Error) => {
  const refused = refusedLoginReason(error);
  process.stderr.write(
    refused
      ? `db:migrate failed: PostgreSQL refused the login in DATABASE_URL (${refused}): fix its user or password\n`
      : `db:migrate failed: ${error.message}\n`,
  );
  process.exit(1);
});
