import {
  accountDeletionUnderWay,
  accountLedger,
  changeMonitor,
  createAccount,
  listAllMonitors,
  findJob,
  listAccounts,
  listApiKeys,
  creditSummary,
  findAccount,
  findCreditDiscrepancies,
  grantCredits,
  topUpTestCredits,
  issueApiKey,
  revokeKey,
  eraseSubject,
  confirmObjection,
  listObjections,
  recordAuditEvent,
  listAuditEvents,
  OPERATOR,
  resealWebhookSecrets,
  inTransaction,
  type Database,
} from '@leadgen/db';
import { cancelJob, type Lifecycle } from '@leadgen/commands';
import { waitUntilConnected } from '@leadgen/queue';
import {
  decideMonitorChange,
  isTerminal,
  normalizeSuppression,
  OBJECTION_ID_PATTERN,
  OBJECTION_STATUSES,
  TEST_ACCOUNT_CREDITS,
  subjectDigest,
  type ObjectionStatus,
  type SubjectKind,
} from '@leadgen/domain';
import type { JobProducer, WebhookProducer } from '@leadgen/queue';
import { deleteAccountEverywhere } from './account-deletion';

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
  /** a job's life (@leadgen/commands) on this database and these queues: job:cancel, account:delete */
  lifecycle(): Promise<Lifecycle>;
  /** tells every API process that the account's keys changed (announceKeyEpoch); rejects when Redis is away */
  announceKeyEpoch(accountId: string, keyEpoch: number): Promise<void>;
  /** asks the operator at a terminal; null when there is none to ask (a pipe, CI, a test) */
  confirm(question: string): Promise<boolean | null>;
}

export const USAGE = `usage: npx leadgen-admin <command> [options] [--json | --table]   (or npm run -s admin -- ...)
  account:create --name NAME [--credits C]   create an account (and its first API key)
  account:list                                every account with its credits and live keys; a test account (mode test) follows its live account
  account:show --account ID                   the account with its credits
  account:delete --account ID [--yes]         asks first unless --yes; refuse its keys, cancel its open jobs, then delete the account and all it owns (ledger included); the audit trail keeps that it happened
  key:create --account ID [--expires-in 90d]  issue another API key for an account (expiring after N days or hours: 90d, 12h)
  key:list --account ID                       an account's keys: id, prefix, created, last used, expires, revoked
  key:revoke --id KEY_ID | --key API_KEY      revoke a key, by its id (key_...) or by its secret
  credits:grant --account ID --amount C       add credits to an account
  credits:top-up-test [--account ID]          restore test accounts' credits to the test allowance now (every one, or ID's: a live or test account)
  credits:verify [--account ID]               check the accounts' credit counters against the ledger (exit 2 if any differ)
  ledger:show --account ID                    an account's ledger rows with the running balance
  job:show --job ID                           a job: status, counts, stop reason, credits, times
  job:cancel --job ID                         cancel a queued or running job, as its owner's DELETE does
  audit:show [--account ID] [--action A] [--limit N]   the audit trail, newest first (every account's without --account)
  subject:erase --email X | --phone X | --domain X | --linkedin-url X   delete every stored lead holding it, in every account, and never collect or deliver it again
  objection:list [--status S] [--limit N]     objections by the people in the leads, newest first: pending, confirmed (being applied), applied (S: one of them)
  objection:confirm --id OBJ_ID               confirm a pending objection (a phone's: call the number first); the workers apply it within a minute
  monitor:list [--account ID] [--limit N]     monitors, newest first: schedule, next run, last run, why paused (every account's without --account)
  monitor:pause --monitor ID                  pause a monitor (reason operator); its owner resumes it with PATCH { enabled: true }
  secrets:rotate                              re-seal every webhook secret under the first SECRETS_ENCRYPTION_KEY key (then the older keys can go)
output: a table on a terminal, one JSON object otherwise (scripts); --json or --table forces either`;

/** One command's help (`npm run admin -- job:cancel --help`): its line of USAGE; the whole USAGE for an unknown command. */
export function commandHelp(command: string): string {
  const lines = USAGE.split('\n');
  const line = lines.find((l) => l.trimStart().split(' ')[0] === command);
  if (!line) return USAGE;
  const [usage, ...described] = line.trim().split(/\s{2,}/);
  return `usage: npx leadgen-admin ${usage} [--json | --table]\n  ${described.join(' ')}\n${lines.at(-1)}`;
}

type Flags = Map<string, string>;

// Flags that take no value: present or not.
const SWITCHES = new Set(['yes']);

function parseFlags(args: string[], allowed: string[]): Flags {
  const flags: Flags = new Map();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const name = arg.startsWith('--') ? arg.slice(2).split('=')[0]! : null;
    if (!name || !allowed.includes(name)) throw new UsageError(`unknown argument "${arg}" (npm run admin -- --help lists the commands)`);
    if (SWITCHES.has(name)) {
      if (arg.includes('=')) throw new UsageError(`--${name} takes no value`);
      flags.set(name, 'true');
      continue;
    }
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

function monitorView(monitor: Awaited<ReturnType<typeof listAllMonitors>>[number]): Record<string, unknown> {
  return {
    monitorId: monitor.id,
    accountId: monitor.accountId,
    name: monitor.name,
    schedule: 'every' in monitor.schedule ? `every ${monitor.schedule.every}` : `${monitor.schedule.cron} (${monitor.schedule.timezone})`,
    enabled: monitor.enabled,
    pausedReason: monitor.enabled ? null : monitor.pausedReason,
    nextRunAt: monitor.nextRunAt?.toISOString() ?? null,
    lastRunStatus: monitor.lastRun ? (monitor.lastRun.status ?? `skipped: ${monitor.lastRun.skipReason}`) : null,
    lastRunAt: monitor.lastRun?.createdAt.toISOString() ?? null,
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
      return inTransaction(db, async (tx) => {
        const account = await createAccount(tx, name);
        if (amount > 0) await grantCredits(tx, account.id, amount);
        const { apiKey, keyId } = await issueApiKey(tx, account.id);
        await recordAuditEvent(tx, { accountId: account.id, action: 'key.created', summary: { keyId }, ...OPERATOR });
        return { accountId: account.id, apiKey };
      });
    }
    case 'key:create': {
      const flags = parseFlags(args, ['account', 'expires-in']);
      const expiresIn = flags.get('expires-in');
      const expiresAt = expiresIn === undefined ? undefined : new Date(Date.now() + duration(expiresIn, 'expires-in'));
      const db = await database();
      const account = await existingAccount(db, required(flags, 'account'));
      const issued = await issueApiKey(db, account.id, { expiresAt });
      await recordAuditEvent(db, {
        accountId: account.id,
        action: 'key.created',
        summary: { keyId: issued.keyId, expiresAt: issued.expiresAt ?? null },
        ...OPERATOR,
      });
      return { ...issued };
    }
    case 'key:revoke': {
      const flags = parseFlags(args, ['key', 'id']);
      if (flags.has('id') === flags.has('key'))
        throw new UsageError(`key:revoke needs --id KEY_ID or --key API_KEY (npm run admin -- --help lists the commands)`);
      const db = await database();
      const revocation = await revokeKey(db, flags.has('id') ? { keyId: required(flags, 'id') } : { apiKey: required(flags, 'key') });
      if (!revocation) {
        if (flags.has('id'))
          throw new UsageError(`admin: no key ${flags.get('id')}: npm run admin -- key:list --account ID shows an account's keys`, 1);
        throw new UsageError('admin: no such API key: revoke by id instead (key:list --account ID shows the ids)', 1);
      }
      await recordAuditEvent(db, {
        accountId: revocation.accountId,
        action: 'key.revoked',
        summary: { keyId: revocation.keyId },
        ...OPERATOR,
      });
      // PostgreSQL refuses the key already; the epoch in Redis makes every API process drop its cached copy at its next request.
      const announced = await services.announceKeyEpoch(revocation.accountId, revocation.keyEpoch).then(
        () => true,
        () => false,
      );
      if (!announced)
        process.stderr.write(
          `admin: the key is revoked; Redis was not told (away), so an API process that had it cached may accept it for up to AUTH_CACHE_MS\n`,
        );
      return { revoked: true, keyId: revocation.keyId, accountId: revocation.accountId, everywhere: announced };
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
      if (isTerminal(job.status) && job.status !== 'CANCELLED')
        throw new UsageError(`admin: job ${job.id} is ${job.status} already: only a queued or running job can be cancelled`, 1);
      // The same cancel command as the owner's DELETE: CANCELLED with what was delivered, then word to the fleet.
      const producer = services.producer();
      // A connection made a moment ago: the first message must not be refused only because it is still connecting.
      await producer.waitUntilReady(2000);
      const cancellation = await cancelJob(await services.lifecycle(), job.id, null);
      if (cancellation.kind === 'not_found') throw new UsageError(`admin: no job ${job.id}`, 1);
      if (cancellation.kind === 'not_cancellable')
        throw new UsageError(
          `admin: job ${job.id} is ${cancellation.job.status} already: only a queued or running job can be cancelled`,
          1,
        );
      // PostgreSQL has it CANCELLED either way: a worker stops at its next page commit, a queued entry finds the job
      // terminal, and the outbox sweep sends its webhooks. The operator still learns, in one line, that Redis was not told.
      if (cancellation.untold.length > 0) {
        throw new UsageError(
          `admin: job ${job.id} is cancelled, but Redis (REDIS_URL) did not answer, so the fleet was not told: its worker stops at its next page and the outbox sweep sends its webhooks`,
          1,
        );
      }
      return jobView(cancellation.job);
    }
    case 'monitor:list': {
      const flags = parseFlags(args, ['account', 'limit']);
      const limit = flags.has('limit') ? credits(flags, 'limit') : 100;
      const rows = await listAllMonitors(await database(), flags.get('account') ?? null, Math.max(1, Math.min(limit, 1_000)));
      return { rows: rows.map(monitorView) };
    }
    case 'monitor:pause': {
      const flags = parseFlags(args, ['monitor']);
      const id = required(flags, 'monitor');
      // The owner's PATCH { enabled: false } with the operator as the reason; an alarm left set rings for nothing.
      const moved = await changeMonitor(await database(), null, id, (current) =>
        decideMonitorChange(current, { enabled: false }, new Date(), 'operator'),
      );
      if (!moved) throw new UsageError(`admin: no monitor ${id}: npm run admin -- monitor:list shows them`, 1);
      await recordAuditEvent(await database(), {
        accountId: moved.monitor.accountId,
        action: 'monitor.paused',
        summary: { monitorId: id, fields: ['enabled'] },
        ...OPERATOR,
      });
      return monitorView(moved.monitor);
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
      return {
        accountId: account.id,
        name: account.name,
        createdAt: account.createdAt.toISOString(),
        credits: await creditSummary(db, account.id),
      };
    }
    case 'credits:top-up-test': {
      const flags = parseFlags(args, ['account']);
      const db = await database();
      const only = flags.get('account');
      if (only) await existingAccount(db, only);
      const rows = await topUpTestCredits(db, { allowance: TEST_ACCOUNT_CREDITS, accountId: only ?? null });
      return { allowance: TEST_ACCOUNT_CREDITS, toppedUp: rows.length, rows };
    }
    case 'credits:verify': {
      const flags = parseFlags(args, ['account']);
      const only = flags.get('account');
      const db = await database();
      if (only) await existingAccount(db, only);
      const discrepancies = (await findCreditDiscrepancies(db)).filter((d) => !only || d.accountId === only);
      return { ok: discrepancies.length === 0, discrepancies };
    }
    case 'audit:show': {
      const flags = parseFlags(args, ['account', 'action', 'limit']);
      const limit = flags.has('limit') ? credits(flags, 'limit') : 50;
      if (limit < 1 || limit > 10_000) throw new UsageError('--limit must be 1 to 10000');
      const db = await database();
      const only = flags.get('account') ?? null;
      // A deleted account's events stay: an id that is no longer an account is still asked about.
      const rows = await listAuditEvents(db, only, { action: flags.get('action') ?? null }, null, limit);
      return {
        rows: rows.map((e) => ({
          at: e.createdAt.toISOString(),
          accountId: e.accountId,
          actor: e.actor,
          action: e.action,
          requestId: e.requestId,
          summary: JSON.stringify(e.summary),
        })),
      };
    }
    case 'objection:list': {
      const flags = parseFlags(args, ['status', 'limit']);
      const limit = flags.has('limit') ? credits(flags, 'limit') : 50;
      if (limit < 1 || limit > 10_000) throw new UsageError('--limit must be 1 to 10000');
      const status = flags.get('status');
      if (status !== undefined && !(OBJECTION_STATUSES as readonly string[]).includes(status))
        throw new UsageError(`--status must be one of ${OBJECTION_STATUSES.join(', ')}`);
      const db = await database();
      const rows = await listObjections(db, { status: status as ObjectionStatus | undefined, limit });
      return {
        rows: rows.map((o) => ({
          id: o.id,
          kind: o.kind,
          value: o.value,
          // how the operator board shows the subject (it never shows the value)
          digest: subjectDigest(o.value),
          status: o.status,
          proof: o.confirmedBy,
          requestedAt: o.createdAt.toISOString(),
          expiresAt: o.expiresAt.toISOString(),
          confirmedAt: o.confirmedAt?.toISOString() ?? null,
          appliedAt: o.appliedAt?.toISOString() ?? null,
          leadsErased: o.leadsErased,
          accountsNoticed: o.accountsNoticed,
        })),
      };
    }
    case 'objection:confirm': {
      const flags = parseFlags(args, ['id']);
      const id = required(flags, 'id');
      if (!OBJECTION_ID_PATTERN.test(id)) throw new UsageError('--id must be an objection id (obj_...)');
      const db = await database();
      const objection = await confirmObjection(db, id, 'operator');
      if (!objection)
        throw new UsageError(`admin: no pending objection ${id}: npm run admin -- objection:list --status pending shows them`, 1);
      await recordAuditEvent(db, {
        accountId: null,
        action: 'objection.confirmed',
        summary: { objectionId: id, kind: objection.kind, proof: 'operator' },
        ...OPERATOR,
      });
      return {
        objectionId: id,
        kind: objection.kind,
        status: objection.status,
        appliedWithin: 'a minute, by the workers that deliver webhooks',
      };
    }
    case 'subject:erase': {
      const flags = parseFlags(args, ['email', 'phone', 'domain', 'linkedin-url']);
      const given = (['email', 'phone', 'domain', 'linkedin-url'] as const).filter((k) => flags.has(k));
      if (given.length !== 1) throw new UsageError('subject:erase needs exactly one of --email X, --phone X, --domain X, --linkedin-url X');
      const flag = given[0]!;
      const kind: SubjectKind = flag === 'linkedin-url' ? 'linkedin' : flag;
      const value = normalizeSuppression(kind, required(flags, flag));
      if (!value)
        throw new UsageError(
          kind === 'linkedin'
            ? '--linkedin-url is not a LinkedIn profile URL: give it as https://www.linkedin.com/in/<name>'
            : `--${kind} is not a valid ${kind}: give it as a client would (an E.164 phone number, such as +15125550100)`,
        );
      const db = await database();
      const report = await eraseSubject(db, { kind, value });
      // API processes keep finished jobs' bodies in memory: told to drop those that held the person.
      const producer = services.producer();
      await waitUntilConnected(producer.connection, 3_000);
      const told = await Promise.allSettled(report.jobIds.map((jobId) => producer.publishLeadsErased(jobId)));
      if (told.some((t) => t.status === 'rejected'))
        process.stderr.write("admin: Redis away: an API process may show an erased lead in a finished job's body until it restarts\n");
      // The trail keeps that it happened and how much went, never who it was.
      await recordAuditEvent(db, {
        accountId: null,
        action: 'subject.erased',
        summary: { kind, leads: report.leads, accounts: report.perAccount.length },
        ...OPERATOR,
      });
      for (const { accountId, leads } of report.perAccount) {
        await recordAuditEvent(db, { accountId, action: 'subject.erased', summary: { kind, leads }, ...OPERATOR });
      }
      return {
        erased: { kind, value },
        suppressedNow: report.newlySuppressed,
        leadsDeleted: report.leads,
        webhookExcerptsCleared: report.webhookExcerptsCleared,
        rows: report.perAccount,
      };
    }
    case 'account:delete': {
      const flags = parseFlags(args, ['account', 'yes']);
      const accountId = required(flags, 'account');
      const db = await database();
      // No account row but a deletion under way (it stopped once the row was gone, decision 043): this carries it on.
      const account = (await accountDeletionUnderWay(db, accountId))
        ? { name: 'its row deleted already, its ledger not yet' }
        : await existingAccount(db, accountId);
      if (!flags.has('yes')) {
        // Irreversible, ledger included: a slip of the shell history must not be enough.
        const answer = await services.confirm(`Delete account ${accountId} (${account.name}) and everything it owns, ledger included?`);
        if (answer === null)
          throw new UsageError(`admin: account:delete deletes account ${accountId} for good; no terminal to ask on: pass --yes to confirm`);
        if (!answer) throw new UsageError('admin: account:delete cancelled; nothing was changed', 1);
      }
      const result = await deleteAccountEverywhere(db, services, accountId);
      if (result.kind === 'not_found')
        throw new UsageError(`admin: no account ${accountId}: npm run admin -- account:list shows the accounts`, 1);
      if (result.kind === 'open_jobs')
        throw new UsageError(
          `admin: account ${accountId} keeps opening jobs (${result.jobIds.join(', ')}): its keys are revoked; run account:delete again`,
          1,
        );
      if (!result.keysRefusedEverywhere)
        process.stderr.write(
          'admin: Redis away: an API process that had a key of the account cached may accept it for up to AUTH_CACHE_MS\n',
        );
      return { deleted: true, accountId, jobsCancelled: result.cancelled.length, ...result.figures };
    }
    case 'secrets:rotate': {
      parseFlags(args, []);
      return { ...(await resealWebhookSecrets(await database())) };
    }
    default:
      throw new UsageError(`unknown command "${command}" (npm run admin -- --help lists the commands)`);
  }
}
