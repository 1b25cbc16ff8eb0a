import { createInterface } from 'node:readline/promises';
import { createLifecycle, type Lifecycle } from '@leadgen/commands';
import { loadConfigOrExit } from '@leadgen/config';
import { createDatabase, schemaStatus, type Database } from '@leadgen/db';
import { setLogLevel } from '@leadgen/logger';
import { createJobProducer, createWebhookProducer, waitUntilConnected, type JobProducer, type WebhookProducer } from '@leadgen/queue';
import { announceKeyEpoch } from '@leadgen/rate-limits';
import { commandHelp, runCommand, UsageError, USAGE, type Services } from './commands';
import { failureLine } from './failures';
import { outputMode, render } from './output';

// `npx leadgen-admin <command> [--flag value] [--json|--table]` (bin/leadgen-admin.js; or `npm run -s admin -- ...`):
// see output.ts for what is printed. stdout carries the answer only; questions and messages go to stderr.

/** A yes/no question on the terminal; null when stdin or stderr is no terminal (a pipe, CI): nobody to ask. */
async function confirmOnTerminal(question: string): Promise<boolean | null> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return null;
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await terminal.question(`${question} [y/N] `)).trim());
  } finally {
    terminal.close();
  }
}

async function main(argv: string[]): Promise<number> {
  setLogLevel('error');
  const mode = outputMode({ json: argv.includes('--json'), table: argv.includes('--table') }, Boolean(process.stdout.isTTY));
  const args = argv.filter((a) => a !== '--json' && a !== '--table');
  if (['help', '--help', '-h'].includes(args[0] ?? '')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${commandHelp(args[0]!)}\n`);
    return 0;
  }
  if (args.length === 0) {
    process.stderr.write(`${USAGE}\n`);
    return 64;
  }
  const config = loadConfigOrExit('admin');
  let db: Database | null = null;
  let producer: JobProducer | null = null;
  let webhooks: WebhookProducer | null = null;
  let lifecycle: Lifecycle | null = null;
  const services: Services = {
    database: async () => {
      if (db) return db;
      db = createDatabase(config.database.url, { poolSize: 2, secretKeys: config.secrets.encryptionKeys });
      // Checked first, so a missing migration is one clear line rather than a failed statement.
      const status = await schemaStatus(db);
      if (!status.current)
        throw new UsageError(
          `admin: the database is not migrated (${status.missing.length} migration(s) missing): run npm run db:migrate first`,
          1,
        );
      return db;
    },
    producer: () => (producer ??= createJobProducer(config.redis)),
    webhooks: () => (webhooks ??= createWebhookProducer(config.redis)),
    lifecycle: async () =>
      (lifecycle ??= createLifecycle({
        db: await services.database(),
        config,
        queue: services.producer(),
        events: services.producer(),
        webhooks: services.webhooks(),
      })),
    announceKeyEpoch: async (accountId, keyEpoch) => {
      const { connection, keys } = services.producer();
      // The producer's connection fails fast rather than queueing: give a connection made just now a moment.
      await waitUntilConnected(connection, 3_000);
      await announceKeyEpoch(connection, keys.account(accountId).keyEpoch, keyEpoch);
    },
    confirm: confirmOnTerminal,
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

// Exit only once stdout has taken everything: to a pipe, Node writes asynchronously, and an exit before the
// last chunk drained would hand a script truncated JSON with a success code. An empty write's callback runs
// after every earlier write is flushed.
main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  process.stdout.write('', () => process.exit(code));
});
