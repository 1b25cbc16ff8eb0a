import { loadConfigOrExit } from '@leadgen/config';
import { createDatabase, type Database } from '@leadgen/db';
import { setLogLevel } from '@leadgen/logger';
import { runCommand, UsageError } from './commands';

// `npm run admin -- <command> [--flag value]`: one JSON object on stdout per command.
async function main(argv: string[]): Promise<number> {
  setLogLevel('error');
  const config = loadConfigOrExit();
  let db: Database | null = null;
  try {
    const result = await runCommand(argv, () => (db ??= createDatabase(config.database.url, { poolSize: 2 })));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    // A check that found a problem (credits:verify) exits 2, so a cron job or a probe can alert on it.
    return result.ok === false ? 2 : 0;
  } catch (error) {
    process.stderr.write(`${error instanceof UsageError ? error.message : `admin: ${(error as Error).message}`}\n`);
    return error instanceof UsageError ? 64 : 1;
  } finally {
    await (db as Database | null)?.$disconnect();
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
