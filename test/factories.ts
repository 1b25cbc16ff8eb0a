import { randomBytes } from 'node:crypto';
import {
  commitPage,
  createAccount,
  insertJob,
  findJob,
  grantCredits,
  issueApiKey,
  recordSettlement,
  startJob,
  type Database,
  type JobRecord,
} from '@leadgen/db';
import { newId, reservationFor, type GenerationRequest, type JobOutcome, type JobStatus, type Lead, type Source } from '@leadgen/domain';

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

/** A key of the account's, live unless `expiresAt` has passed. */
export async function buildApiKey(db: Database, accountId: string, options: { expiresAt?: Date } = {}): Promise<TestApiKey> {
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
