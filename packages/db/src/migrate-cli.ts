import { loadConfigOrExit } from '@leadgen/config';
import { migrate } from './migrator';

// `npm run db:migrate`: applies prisma/migrations to DATABASE_URL.
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const result = await migrate(config.database.url);
  const target = new URL(config.database.url);
  target.password = '';
  process.stdout.write(
    `${JSON.stringify({ database: target.pathname.slice(1), createdDatabase: result.createdDatabase, applied: result.applied })}\n`,
  );
}

main().catch((error: Error) => {
  process.stderr.write(`db:migrate failed: ${error.message}\n`);
  process.exit(1);
});
