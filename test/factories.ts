import { randomBytes } from 'node:crypto';
import {
  addSuppressions,
  commitPage,
  createAccount,
  createWebhookEndpoint,
  insertBatch,
  insertJob,
  findJob,
  grantCredits,
  insertMonitor,
  issueApiKey,
  recordSettlement,
  startJob,
  type Database,
  type JobRecord,
  type MonitorRecord,
  type NewKeyOptions,
  type NewMonitor,
  type WebhookEndpointRecord,
} from '@leadgen/db';
import {
  JOB_EVENT_TYPES,
  newId,
  newWebhookSecret,
  reservationFor,
  type GenerationRequest,
  type JobOutcome,
  type JobStatus,
  type Lead,
  type Source,
  type SubscribableEvent,
  type SuppressionEntry,
} from '@leadgen/domain';

/**
 * Test data, one builder per thing a test needs. Rows are
 * written by the statements the service itself runs, so they keep every guarantee the invariant
 * checker (test/faults/invariants.ts) holds the service to. Each call builds rows of its own: test
 * files that use them run in parallel without meeting.
 */

export interface TestAccount {
  accountId: string;
  apiKey: string;
  auth: { Authorization: string };
}

export interface TestApiKey {
  keyId: string;
  apiKey: string;
  auth: { Authorization: string };
}

/** A key of the account's, live unless `expiresAt` has passed; every scope and live mode unless said. */
export async function buildApiKey(db: Database, accountId: string, options: NewKeyOptions = {}): Promise<TestApiKey> {
  const { keyId, apiKey } = await issueApiKey(db, accountId, options);
  return { keyId, apiKey, auth: { Authorization: `Bearer ${apiKey}` } };
}

/** An account of the test's own, with `credits` (10,000 unless said) and a key. */
export async function buildAccount(db: Database, options: { credits?: number; name?: string } = {}): Promise<TestAccount> {
  const { credits = 10_000, name = 'test' } = options;
  const account = await createAccount(db, name);
  if (credits > 0) await grantCredits(db, account.id, credits);
  const { apiKey, auth } = await buildApiKey(db, account.id);
  return { accountId: account.id, apiKey, auth };
}

/** One lead of `source`'s shape, the n-th of its job (distinct names, keys and contacts per n). */
export function buildLead(source: Source = 'google_maps', n = 0): Lead {
  const common = {
    businessName: `Studio ${n}`,
    email: `info${n}@studio${n}.example`,
    phone: `+1 512-555-${String(n % 10_000).padStart(4, '0')}`,
    address: `${n + 1} Congress Ave, Austin, TX 78701`,
    website: `https://studio${n}.example`,
    reviewScore: 4.5,
    categories: ['dentist'],
    socialProfiles: { facebook: null, instagram: null, linkedin: null },
  };
  if (source === 'linkedin') {
    const linkedinUrl = `https://www.linkedin.com/in/person-${n}`;
    return {
      ...common,
      source,
      socialProfiles: { ...common.socialProfiles, linkedin: linkedinUrl },
      person: { fullName: `Person ${n}`, title: 'Head of Sales', seniority: 'head', linkedinUrl, location: 'Austin, Texas' },
    };
  }
  if (source === 'shopify') {
    return { ...common, source, store: { domain: `studio${n}.example`, country: 'US', platform: 'shopify' }, contacts: [] };
  }
  return { ...common, source };
}

/** Each status's leads and the outcome that settles it; `delivered` defaults as its meaning asks. */
const ENDINGS: Record<JobStatus, { delivered: (requested: number) => number; outcome: JobOutcome | null; started: boolean }> = {
  queued: { delivered: () => 0, outcome: null, started: false },
  running: { delivered: () => 0, outcome: null, started: true },
  COMPLETE: { delivered: (requested) => requested, outcome: { kind: 'finished' }, started: true },
  PARTIAL: { delivered: (requested) => Math.max(1, Math.floor(requested / 2)), outcome: { kind: 'finished' }, started: true },
  EMPTY: { delivered: () => 0, outcome: { kind: 'finished' }, started: true },
  FAILED: { delivered: () => 0, outcome: { kind: 'error', reason: 'provider_error' }, started: true },
  CANCELLED: { delivered: () => 0, outcome: { kind: 'cancelled' }, started: false },
};

export interface JobOptions {
  accountId: string;
  /** queued (the default), running, or a terminal status the job is settled with */
  status?: JobStatus;
  source?: Source;
  maxResults?: number;
  /** leads committed before the job is settled (running, PARTIAL, CANCELLED); by default what the status means */
  deliveredCount?: number;
  request?: Partial<GenerationRequest>;
}

/**
 * A job in `status`, taken there as the service takes one: created with its reservation, started by
 * the sandbox, its leads committed, and settled and billed. No queue entry is made: a test that needs
 * a worker to run the job enqueues it, or creates it through the API.
 */
export async function buildJob(db: Database, options: JobOptions): Promise<JobRecord> {
  const { accountId, status = 'queued', source = 'google_maps', maxResults = 10 } = options;
  const ending = ENDINGS[status];
  const delivered = options.deliveredCount ?? ending.delivered(maxResults);
  const request: GenerationRequest = { source, category: 'dentist', state: 'US', maxResults, ...options.request };
  const jobId = newId.job();
  const created = await insertJob(db, {
    accountId,
    idempotencyKey: `factory-${randomBytes(8).toString('hex')}`,
    fingerprint: `factory-${jobId}`,
    idempotencyTtlHours: 24,
    jobId,
    resultSetId: newId.resultSet(),
    request,
    creditsReserved: reservationFor(source, maxResults),
    share: 0,
  });
  if (created.kind !== 'created') throw new Error(`buildJob: the account cannot have the job (${created.kind})`);
  if (ending.started || delivered > 0) await startJob(db, jobId, 'sandbox');
  if (delivered > 0) {
    const page = Array.from({ length: delivered }, (_, n) => ({ dedupKey: `factory-${n}`, lead: buildLead(source, n), matches: [] }));
    const committed = await commitPage(db, jobId, page, null);
    if (committed.kind !== 'committed') throw new Error(`buildJob: the leads were not committed (${committed.kind})`);
  }
  if (ending.outcome) await recordSettlement(db, jobId, ending.outcome);
  const job = (await findJob(db, jobId))!;
  if (job.status !== status) throw new Error(`buildJob: asked for ${status}, the counts made it ${job.status}`);
  return job;
}

// Shared with the bench's export section (apps/bench), which writes 100,000 leads with it.
export { buildDeliveredJobs } from '@leadgen/testing';

/** The request the builders use unless told otherwise: 10 google_maps dentists in the US. */
function request(given: Partial<GenerationRequest> = {}): GenerationRequest {
  return { source: 'google_maps', category: 'dentist', state: 'US', maxResults: 10, ...given } as GenerationRequest;
}

export interface TestBatch {
  batchId: string;
  /** the children's job ids, in the batch's order */
  jobIds: string[];
}

export interface BatchOptions {
  accountId: string;
  /** one child per request (each completed from the builders' default request); two children unless said */
  requests?: Array<Partial<GenerationRequest>>;
  maxCredits?: number | null;
  webhookUrl?: string | null;
  name?: string | null;
  excludeDelivered?: boolean;
}

/**
 * A running batch created as POST /leads/batches creates one (create_batch: its children queued, each
 * reserving its worst case when it starts). No queue entry is made, as for buildJob.
 */
export async function buildBatch(db: Database, options: BatchOptions): Promise<TestBatch> {
  const { accountId, requests = [{}, { city: 'Austin' }], maxCredits = null, webhookUrl = null, name = null } = options;
  const batchId = newId.batch();
  const children = requests.map((given) => {
    const childRequest = request(given);
    return {
      jobId: newId.job(),
      resultSetId: newId.resultSet(),
      request: childRequest,
      reserve: reservationFor(childRequest.source, childRequest.maxResults),
    };
  });
  const created = await insertBatch(db, {
    accountId,
    idempotencyKey: `factory-${batchId}`,
    fingerprint: `factory-${batchId}`,
    idempotencyTtlHours: 24,
    batchId,
    name,
    excludeDelivered: options.excludeDelivered ?? false,
    maxCredits,
    webhookUrl,
    children,
    webhookSecretCandidate: newWebhookSecret(),
  });
  if (created.kind !== 'created') throw new Error(`buildBatch: the account cannot have the batch (${created.kind})`);
  return { batchId, jobIds: children.map((child) => child.jobId) };
}

export type MonitorOptions = { accountId: string } & Partial<Omit<NewMonitor, 'accountId'>>;

/**
 * A monitor as POST /monitors stores one: of one request (a batch monitor when `batch` is given), every hour,
 * enabled, due an hour from now unless `nextRunAt` says when. Without the API's per-account limit.
 */
export async function buildMonitor(db: Database, options: MonitorOptions): Promise<MonitorRecord> {
  const { accountId, batch, ...given } = options;
  const enabled = given.enabled ?? true;
  const created = await insertMonitor(
    db,
    {
      id: newId.monitor(),
      accountId,
      name: 'factory monitor',
      request: batch ? null : request(),
      schedule: { every: 'PT1H' },
      webhookUrl: null,
      maxCreditsPerRun: null,
      nextRunAt: enabled ? new Date(Date.now() + 3_600_000) : null,
      ...given,
      enabled,
      ...(batch ? { batch } : {}),
    },
    Number.POSITIVE_INFINITY,
  );
  if (created === 'limit') throw new Error('buildMonitor: refused by a limit it was not given');
  return created;
}

export interface TestWebhookEndpoint {
  endpoint: WebhookEndpointRecord;
  /** its signing secret, as POST /webhooks shows it once */
  secret: string;
}

/** An account's webhook endpoint (sealed secret, as POST /webhooks stores it), subscribed to every job event unless told. */
export async function buildWebhookEndpoint(
  db: Database,
  accountId: string,
  options: { url?: string; events?: SubscribableEvent[]; description?: string | null } = {},
): Promise<TestWebhookEndpoint> {
  const secret = newWebhookSecret();
  const endpoint = await createWebhookEndpoint(db, accountId, {
    url: options.url ?? 'https://hooks.example.com/leadgen',
    events: options.events ?? [...JOB_EVENT_TYPES],
    description: options.description ?? null,
    secret,
  });
  if (!endpoint) throw new Error('buildWebhookEndpoint: the account has MAX_WEBHOOK_ENDPOINTS already');
  return { endpoint, secret };
}

/**
 * Entries on the account's suppression list, already in their normal forms (a bare lower-case domain, a
 * lower-case email, an E.164 phone); by default the first buildLead's domain. Returns the entries.
 */
export async function buildSuppressions(
  db: Database,
  accountId: string,
  entries: SuppressionEntry[] = [{ kind: 'domain', value: 'studio0.example' }],
): Promise<SuppressionEntry[]> {
  await addSuppressions(db, accountId, entries);
  return entries;
}
