import {
  createAccount,
  creditSummary,
  findAccount,
  findCreditDiscrepancies,
  grantCredits,
  issueApiKey,
  revokeApiKey,
  transaction,
  type Database,
} from '@leadgen/db';

export class UsageError extends Error {}

export const USAGE = `usage: npm run admin -- <command> [options]
  account:create --name NAME [--credits C]   create an account (and its first API key)
  key:create --account ID [--expires-in 90d]  issue another API key for an account (expiring after N days or hours: 90d, 12h)
  key:revoke --key API_KEY                    revoke a key
  credits:grant --account ID --amount C       add credits to an account
  account:show --account ID                   the account with its credits
  credits:verify [--account ID]               check the accounts' credit counters against the ledger (exit 2 if any differ)`;

type Flags = Map<string, string>;

function parseFlags(args: string[], allowed: string[]): Flags {
  const flags: Flags = new Map();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const name = arg.startsWith('--') ? arg.slice(2).split('=')[0]! : null;
    if (!name || !allowed.includes(name)) throw new UsageError(`unknown argument "${arg}"\n${USAGE}`);
    const inline = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : undefined;
    const value = inline ?? args[++i];
    if (value === undefined || (inline === undefined && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    flags.set(name, value);
  }
  return flags;
}

function required(flags: Flags, name: string): string {
  const value = flags.get(name)?.trim();
  if (!value) throw new UsageError(`--${name} is required\n${USAGE}`);
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
  if (!account) throw new UsageError(`no account ${id}`);
  return account;
}

/** Runs one operator command and returns the object to print. */
export async function runCommand(argv: string[], database: () => Database): Promise<Record<string, unknown>> {
  const [command, ...args] = argv;
  switch (command) {
    case 'account:create': {
      const flags = parseFlags(args, ['name', 'credits']);
      const name = required(flags, 'name');
      const amount = credits(flags, 'credits', 0);
      const db = database();
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
      const db = database();
      const account = await existingAccount(db, required(flags, 'account'));
      return { ...(await issueApiKey(db, account.id, { expiresAt })) };
    }
    case 'key:revoke': {
      const flags = parseFlags(args, ['key']);
      const revoked = await revokeApiKey(database(), required(flags, 'key'));
      if (!revoked) throw new UsageError('no such API key');
      return { revoked: true };
    }
    case 'credits:grant': {
      const flags = parseFlags(args, ['account', 'amount']);
      const db = database();
      const account = await existingAccount(db, required(flags, 'account'));
      const amount = credits(flags, 'amount');
      if (amount <= 0) throw new UsageError('--amount must be at least 1');
      await grantCredits(db, account.id, amount);
      return { accountId: account.id, balance: (await creditSummary(db, account.id)).balance };
    }
    case 'account:show': {
      const flags = parseFlags(args, ['account']);
      const db = database();
      const account = await existingAccount(db, required(flags, 'account'));
      return { accountId: account.id, name: account.name, createdAt: account.createdAt.toISOString(), credits: await creditSummary(db, account.id) };
    }
    case 'credits:verify': {
      const flags = parseFlags(args, ['account']);
      const only = flags.get('account');
      const db = database();
      if (only) await existingAccount(db, only);
      const discrepancies = (await findCreditDiscrepancies(db)).filter((d) => !only || d.accountId === only);
      return { ok: discrepancies.length === 0, discrepancies };
    }
    case undefined:
    case 'help':
    case '--help':
      throw new UsageError(USAGE);
    default:
      throw new UsageError(`unknown command "${command}"\n${USAGE}`);
  }
}
