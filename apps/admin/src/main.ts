import { loadConfigOrExit } from '@leadgen/config';
import { createDatabase, schemaStatus, type Database } from '@leadgen/db';
import { setLogLevel } from '@leadgen/logger';
import { createJobProducer, createWebhookProducer, type JobProducer, type WebhookProducer } from '@leadgen/queue';
import { runCommand, UsageError, USAGE, type Services } from './commands';
import { failureLine } from './failures';
import { outputMode, render } from './output';

// `npm run admin -- <command> [--flag value] [--json|--table]`: see output.ts for what is printed.
async function main(argv: string[]): Promise<number> {
  setLogLevel('error');
  const mode = outputMode({ json: argv.includes('--json'), table: argv.includes('--table') }, Boolean(process.stdout.isTTY));
  const args = argv.filter((a) => a !== '--json' && a !== '--table');
  if (['help', '--help', '-h'].includes(args[0] ?? '') || args.includes('--help')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (args.length === 0) {
    process.stderr.write(`${USAGE}\n`);
    return 64;
  }
  const config = loadConfigOrExit();
  let db: Database | null = null;
  let producer: JobProducer | null = null;
  let webhooks: WebhookProducer | null = null;
  const services: Services = {
    database: async () => {
      if (db) return db;
      db = createDatabase(config.database.url, { poolSize: 2 });
      // Checked first, so a missing migration is one clear line rather than a failed statement.
      const status = await schemaStatus(db);
      if (!status.current) throw new UsageError(`admin: the database is not migrated (${status.missing.length} migration(s) missing): run npm run db:migrate first`, 1);
      return db;
    },
    producer: () => (producer ??= createJobProducer(config.redis.url, config.redis.queuePrefix)),
    webhooks: () => (webhooks ??= createWebhookProducer(config.redis.url, config.redis.queuePrefix)),
  };
  try {
    const result = await runCommand(args, services);
    process.stdout.write(`${render(result, mode)}\n`);
    // A check that found a problem (credits:verify) exits 2, so a cron job or a probe can alert on it.
    return result.ok === false ? 2 : 0;
  } catch (error) {
    process.stderr.write(`${error instanceof UsageError ? error.message : failureLine(error)}\n`);
    return error instanceof UsageError ? error.exitCode : 1;
  } finally {
    await (producer as JobProducer | null)?.close().catch(() => undefined);
    await (webhooks as WebhookProducer | null)?.close().catch(() => undefined);
    await (db as Database | null)?.$disconnect().catch(() => undefined);
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
