import {
  accountLedger,
  createAccount,
  findJob,
  listAccounts,
  listApiKeys,
  revokeApiKeyById,
  settleJob,
  creditSummary,
  findAccount,
  findCreditDiscrepancies,
  grantCredits,
  issueApiKey,
  revokeApiKey,
  transaction,
  type Database,
} from '@leadgen/db';
import { isTerminal } from '@leadgen/domain';
import type { JobProducer, WebhookProducer } from '@leadgen/queue';

/** A mistake of the operator's (or a state to fix first): its message is the whole output. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode = 64,
  ) {
    super(message);
  }
}

export interface Services {
  /** the database, checked to be migrated */
  database(): Promise<Database>;
  /** the queues, for job:cancel's word to the fleet */
  producer(): JobProducer;
  /** the webhook queue, for the deliveries a job:cancel raises */
  webhooks(): WebhookProducer;
}

export const USAGE = `usage: npm run admin -- <command> [options] [--json | --table]
  account:create --name NAME [--credits C]   create an account (and its first API key)
  account:list                                every account with its credits and live keys
  account:show --account ID                   the account with its credits
  key:create --account ID [--expires-in 90d]  issue another API key for an account (expiring after N days or hours: 90d, 12h)
  key:list --account ID                       an account's keys: id, prefix, created, last used, expires, revoked
  key:revoke --id KEY_ID | --key API_KEY      revoke a key, by its id (key_...) or by its secret
  credits:grant --account ID --amount C       add credits to an account
  credits:verify [--account ID]               check the accounts' credit counters against the ledger (exit 2 if any differ)
  ledger:show --account ID                    an account's ledger rows with the running balance
  job:show --job ID                           a job: status, counts, stop reason, credits, times
  job:cancel --job ID                         cancel a queued or running job, as its owner's DELETE does
output: a table on a terminal, one JSON object otherwise (scripts); --json or --table forces either`;

type Flags = Map<string, string>;

function parseFlags(args: string[], allowed: string[]): Flags {
  const flags: Flags = new Map();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const name = arg.startsWith('--') ? arg.slice(2).split('=')[0]! : null;
    if (!name || !allowed.includes(name)) throw new UsageError(`unknown argument "${arg}" (npm run admin -- --help lists the commands)`);
    const inline = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : undefined;
    const value = inline ?? args[++i];
    if (value === undefined || (inline === undefined && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    flags.set(name, value);
  }
  return flags;
}

function required(flags: Flags, name: string): string {
  const value = flags.get(name)?.trim();
  if (!value) throw new UsageError(`--${name} is required (npm run admin -- --help lists the commands)`);
  return value;
}

function credits(flags: Flags, name: string, fallback?: number): number {
  const raw = flags.get(name);
  if (raw === undefined && fallback !== undefined) return fallback;
  if (raw === undefined || !/^\d{1,9}$/.test(raw)) throw new UsageError(`--${name} must be a whole number of credits (0 to 999999999)`);
  return Number(raw);
}

/** "90d" or "12h": a key's lifetime in milliseconds, at most ten years. */
function duration(raw: string, name: string): number {
  const match = /^(\d{1,5})([dh])$/.exec(raw.trim());
  const ms = match ? Number(match[1]) * (match[2] === 'd' ? 86_400_000 : 3_600_000) : 0;
  if (ms <= 0 || ms > 3650 * 86_400_000) throw new UsageError(`--${name} must be a number of days or hours, such as 90d or 12h`);
  return ms;
}

async function existingAccount(db: Database, id: string) {
  const account = await findAccount(db, id);
  if (!account) throw new UsageError(`admin: no account ${id}: npm run admin -- account:list shows the accounts`, 1);
  return account;
}

async function existingJob(db: Database, id: string) {
  const job = await findJob(db, id);
  if (!job) throw new UsageError(`admin: no job ${id}: check the id (job_...)`, 1);
  return job;
}

function jobView(job: NonNullable<Awaited<ReturnType<typeof findJob>>>): Record<string, unknown> {
  return {
    jobId: job.id,
    accountId: job.accountId,
    source: job.source,
    provider: job.provider,
    status: job.status,
    requestedCount: job.requestedCount,
    deliveredCount: job.deliveredCount,
    stopReason: job.stopReason,
    creditsReserved: isTerminal(job.status) ? 0 : job.creditsReserved,
    creditsCharged: job.creditsCharged,
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
  };
}

/** Runs one operator command and returns the object to print. */
export async function runCommand(argv: string[], services: Services): Promise<Record<string, unknown>> {
  const database = () => services.database();
  const [command, ...args] = argv;
  switch (command) {
    case 'account:create': {
      const flags = parseFlags(args, ['name', 'credits']);
      const name = required(flags, 'name');
      const amount = credits(flags, 'credits', 0);
      const db = await database();
      return transaction(db, async (tx) => {
        const account = await createAccount(tx, name);
        if (amount > 0) await grantCredits(tx, account.id, amount);
        const { apiKey } = await issueApiKey(tx, account.id);
        return { accountId: account.id, apiKey };
      });
    }
    case 'key:create': {
      const flags = parseFlags(args, ['account', 'expires-in']);
      const expiresIn = flags.get('expires-in');
      const expiresAt = expiresIn === undefined ? undefined : new Date(Date.now() + duration(expiresIn, 'expires-in'));
      const db = await database();
      const account = await existingAccount(db, required(flags, 'account'));
      return { ...(await issueApiKey(db, account.id, { expiresAt })) };
    }
    case 'key:revoke': {
      const flags = parseFlags(args, ['key', 'id']);
      if (flags.has('id') === flags.has('key')) throw new UsageError(`key:revoke needs --id KEY_ID or --key API_KEY (npm run admin -- --help lists the commands)`);
      const db = await database();
      if (flags.has('id')) {
        const keyId = required(flags, 'id');
        if (!(await revokeApiKeyById(db, keyId))) throw new UsageError(`admin: no key ${keyId}: npm run admin -- key:list --account ID shows an account's keys`, 1);
        return { revoked: true, keyId };
      }
      if (!(await revokeApiKey(db, required(flags, 'key')))) throw new UsageError('admin: no such API key: revoke by id instead (key:list --account ID shows the ids)', 1);
      return { revoked: true };
    }
    case 'account:list': {
      parseFlags(args, []);
      return { rows: await listAccounts(await database()) };
    }
    case 'key:list': {
      const flags = parseFlags(args, ['account']);
      const db = await database();
      const account = await existingAccount(db, required(flags, 'account'));
      return { accountId: account.id, rows: await listApiKeys(db, account.id) };
    }
    case 'ledger:show': {
      const flags = parseFlags(args, ['account']);
      const db = await database();
      const account = await existingAccount(db, required(flags, 'account'));
      const rows = await accountLedger(db, account.id);
      const last = rows.at(-1);
      return { accountId: account.id, balance: last?.balance ?? 0, reserved: last?.reserved ?? 0, rows };
    }
    case 'job:show': {
      const flags = parseFlags(args, ['job']);
      return jobView(await existingJob(await database(), required(flags, 'job')));
    }
    case 'job:cancel': {
      const flags = parseFlags(args, ['job']);
      const db = await database();
      const job = await existingJob(db, required(flags, 'job'));
      if (isTerminal(job.status) && job.status !== 'CANCELLED') throw new UsageError(`admin: job ${job.id} is ${job.status} already: only a queued or running job can be cancelled`, 1);
      // The owner's DELETE settlement (apps/api/src/use-cases/cancel-job.ts): CANCELLED with what was delivered, then word to the fleet.
      const settlement = await settleJob(db, job.id, { kind: 'cancelled' }, job);
      if (settlement?.settled) {
        const producer = services.producer();
        const told = await Promise.allSettled([producer.removeWaiting(job.source, job.id), producer.publishCancel(job.id), producer.publishTerminal(job.id)]);
        const untold = told.filter((r) => r.status === 'rejected').length;
        // PostgreSQL has it CANCELLED either way: a worker stops at its next page commit, and a queued entry finds the job terminal.
        if (untold > 0) process.stderr.write('admin: the job is cancelled; the fleet was not told (Redis away): its worker stops at its next page\n');
        if (settlement.webhookDeliveryIds.length > 0) {
          // Sent at once, as the owner's cancel does; if Redis is away the workers' outbox sweep sends them later.
          const enqueued = await services.webhooks().enqueue(settlement.webhookDeliveryIds).then(() => true, () => false);
          if (!enqueued) process.stderr.write("admin: the job's webhook deliveries were not enqueued (Redis away): the workers' outbox sweep sends them\n");
        }
      }
      const current = await existingJob(db, job.id);
      if (current.status !== 'CANCELLED') throw new UsageError(`admin: job ${job.id} is ${current.status} already: only a queued or running job can be cancelled`, 1);
      return jobView(current);
    }
    case 'credits:grant': {
      const flags = parseFlags(args, ['account', 'amount']);
      const db = await database();
      const account = await existingAccount(db, required(flags, 'account'));
      const amount = credits(flags, 'amount');
      if (amount <= 0) throw new UsageError('--amount must be at least 1');
      await grantCredits(db, account.id, amount);
      return { accountId: account.id, balance: (await creditSummary(db, account.id)).balance };
    }
    case 'account:show': {
      const flags = parseFlags(args, ['account']);
      const db = await database();
      const account = await existingAccount(db, required(flags, 'account'));
      return { accountId: account.id, name: account.name, createdAt: account.createdAt.toISOString(), credits: await creditSummary(db, account.id) };
    }
    case 'credits:verify': {
      const flags = parseFlags(args, ['account']);
      const only = flags.get('account');
      const db = await database();
      if (only) await existingAccount(db, only);
      const discrepancies = (await findCreditDiscrepancies(db)).filter((d) => !only || d.accountId === only);
      return { ok: discrepancies.length === 0, discrepancies };
    }
    default:
      throw new UsageError(`unknown command "${command}" (npm run admin -- --help lists the commands)`);
  }
}
