import { domainToUnicode } from 'node:url';
import { suppressionKeysOf, type Lead, type SubjectEntry } from '@leadgen/domain';
import type { Database } from './client';
import { ERASURE_EPOCH_MAX_AGE_MS } from './erasure-epoch';

const BATCH = 1_000;

export interface ErasureReport {
  /** leads deleted, per account that had any */
  perAccount: Array<{ accountId: string; leads: number }>;
  leads: number;
  /** the jobs that lost leads: API processes must drop the bodies they keep of them */
  jobIds: string[];
  /** false when the subject was on the global list already (running it again is harmless) */
  newlySuppressed: boolean;
  /** webhook attempts whose kept excerpt of the receiver's answer held it, now cleared */
  webhookExcerptsCleared: number;
}

// A cheap first filter PostgreSQL can apply to a webhook attempt's kept excerpt (free text), answered by the trigram
// indexes of 20261204000000_webhook_excerpt_trigram_indexes (pg_trgm, decision 043): `column ILIKE` by
// webhook_attempts_response_excerpt_trgm_idx, the phone's digits by webhook_attempts_excerpt_digits_trgm_idx, built on
// this very expression (change one, change the other: webhook-excerpt-trigram.test.ts reads the plan). Each lead, by
// contrast, is found through its contact keys (leadContactKeys).
function candidateFilter(entry: SubjectEntry, column: string): { sql: string; param: string } {
  if (entry.kind === 'phone')
    return {
      sql: `regexp_replace(${column}, '[^0-9]', '', 'g') LIKE '%' || $1 || '%'`,
      param: entry.value.replace(/\D/g, '').slice(-7),
    };
  // A profile is stored as a URL (any scheme, subdomain, `/in/` or `/pub/`, trailing slash): its slug is what they share.
  const text = entry.kind === 'linkedin' ? entry.value.slice(entry.value.indexOf('/in/') + 4) : entry.value;
  return { sql: `${column} ILIKE '%' || $1 || '%'`, param: text.replace(/[\\%_]/g, (c) => `\\${c}`) };
}

/** The statement that clears the webhook attempts' excerpts that may hold the subject, and its parameters. */
export function excerptClearing(entry: SubjectEntry): { sql: string; params: string[] } {
  const excerpts = candidateFilter(entry, 'response_excerpt');
  return {
    sql: `UPDATE webhook_attempts SET response_excerpt = NULL WHERE response_excerpt IS NOT NULL AND ${excerpts.sql}`,
    params: [excerpts.param],
  };
}

/**
 * The keys of prisma/functions/lead_contact_keys.sql a lead holding the subject has, in every form its stored text
 * may take: a domain is normalised to punycode but may be stored in Unicode, a profile's slug decoded but may be
 * stored percent-encoded. The index finds the candidates; suppressionKeysOf confirms each.
 */
export function leadContactKeys(entry: SubjectEntry): string[] {
  const keys = new Set<string>();
  if (entry.kind === 'email') {
    keys.add(`e:${entry.value}`);
    const at = entry.value.lastIndexOf('@');
    const unicode = domainToUnicode(entry.value.slice(at + 1));
    if (unicode) keys.add(`e:${entry.value.slice(0, at + 1)}${unicode}`);
  }
  if (entry.kind === 'domain') {
    keys.add(`d:${entry.value}`);
    const unicode = domainToUnicode(entry.value);
    if (unicode) keys.add(`d:${unicode}`);
  }
  if (entry.kind === 'phone') keys.add(`p:${entry.value.replace(/\D/g, '').slice(-7)}`);
  if (entry.kind === 'linkedin') {
    const slug = entry.value.slice(entry.value.indexOf('/in/') + 4);
    keys.add(`l:${slug}`);
    keys.add(`l:${encodeURIComponent(slug).toLowerCase()}`);
  }
  return [...keys];
}

/**
 * Puts the subject on the global suppression list, then locks every open job's row once (a barrier: a page
 * commit that read the list before it joined has committed when the lock is had). From its return on, no job
 * stores the subject. Returns whether it was newly listed.
 */
export async function suppressGlobally(db: Database, entry: SubjectEntry): Promise<boolean> {
  const inserted = await db.sql.query('INSERT INTO global_suppressions (kind, value) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    entry.kind,
    entry.value,
  ]);
  const barrier = await db.sql.connect();
  try {
    await barrier.query('BEGIN');
    await barrier.query(`SELECT id FROM jobs WHERE status IN ('queued', 'running') ORDER BY id FOR UPDATE`);
    await barrier.query('COMMIT');
  } catch (error) {
    await barrier.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    barrier.release();
  }
  return (inserted.rowCount ?? 0) > 0;
}

interface StoredLead {
  job_id: string;
  position: number;
  data: Lead;
  account_id: string;
  country: string;
  job_created_at: Date;
}

/** Every stored lead that holds the subject, a page at a time in (job, position) order (`since`: of jobs created since). */
async function* leadsHolding(db: Database, entry: SubjectEntry, since: Date | null = null): AsyncGenerator<StoredLead[]> {
  const keys = leadContactKeys(entry);
  let after: [string, number] = ['', -1];
  for (;;) {
    // Through leads_contact_keys_v1_idx (lead_contact_keys.sql): the leads holding one of the keys, whatever the
    // size of the table; a page at a time, so no statement reads or returns more than BATCH of them.
    const { rows } = await db.sql.query<StoredLead>(
      // MATERIALIZED: the candidates come from the index first; ordered by (job_id, position) the planner could
      // walk the whole table in that order instead, filtering as it goes.
      `WITH candidates AS MATERIALIZED (
         SELECT l.job_id, l.position, l.data FROM leads l
         WHERE lead_contact_keys(l.data) && $1::text[] AND (l.job_id, l.position) > ($2, $3)
       )
       SELECT c.job_id, c.position, c.data, j.account_id, j.request->>'state' AS country, j.created_at AS job_created_at
       FROM candidates c JOIN jobs j ON j.id = c.job_id
       WHERE ($4::timestamptz IS NULL OR j.created_at >= $4)
       ORDER BY c.job_id, c.position LIMIT ${BATCH}`,
      [keys, after[0], after[1], since],
    );
    if (rows.length === 0) return;
    after = [rows.at(-1)!.job_id, rows.at(-1)!.position];
    const matching = rows.filter((r) =>
      suppressionKeysOf(r.data, r.country ?? '').some((k) => k.kind === entry.kind && k.value === entry.value),
    );
    if (matching.length > 0) yield matching;
  }
}

/** An account that holds the subject in its stored leads: which jobs, and the subject's values those leads carry. */
export interface SubjectHolder {
  accountId: string;
  jobIds: string[];
  identifiers: { emails: string[]; phones: string[]; domains: string[] };
}

/**
 * The accounts whose jobs created since `since` delivered leads holding the subject, each with only what its
 * own leads held: the subject itself and, for a domain, the addresses on it (never a name or another field).
 */
export async function subjectHolders(db: Database, entry: SubjectEntry, since: Date): Promise<SubjectHolder[]> {
  const holders = new Map<string, { jobIds: Set<string>; emails: Set<string>; phones: Set<string>; domains: Set<string> }>();
  for await (const page of leadsHolding(db, entry, since)) {
    for (const lead of page) {
      let holder = holders.get(lead.account_id);
      if (!holder) holders.set(lead.account_id, (holder = { jobIds: new Set(), emails: new Set(), phones: new Set(), domains: new Set() }));
      holder.jobIds.add(lead.job_id);
      for (const key of suppressionKeysOf(lead.data, lead.country ?? '')) {
        if (key.kind === 'email' && (entry.kind === 'email' ? key.value === entry.value : key.value.endsWith(`@${entry.value}`)))
          holder.emails.add(key.value);
        if (key.kind === 'phone' && entry.kind === 'phone' && key.value === entry.value) holder.phones.add(key.value);
        if (key.kind === 'domain' && entry.kind === 'domain' && key.value === entry.value) holder.domains.add(key.value);
      }
    }
  }
  return [...holders.entries()]
    .map(([accountId, h]) => ({
      accountId,
      jobIds: [...h.jobIds].sort(),
      identifiers: { emails: [...h.emails].sort(), phones: [...h.phones].sort(), domains: [...h.domains].sort() },
    }))
    .sort((a, b) => a.accountId.localeCompare(b.accountId));
}

/**
 * Erases a data subject (an email, a phone number, a domain or a LinkedIn profile, in its normal form) everywhere: it joins
 * the global suppression list first, so no job collects or delivers it from then on; then every open
 * job's row is locked once (a barrier: a page commit that read the list before it joined has committed
 * when the lock is had); then every stored lead that matches is deleted, in batches. The job rows keep
 * their counts and charges; account_deliveries keeps the dedup keys' SHA-256 digests (no personal data) so excludeDelivered
 * still never bills twice. Idempotent.
 */
export async function eraseSubject(db: Database, entry: SubjectEntry): Promise<ErasureReport> {
  const newlySuppressed = await suppressGlobally(db, entry);
  const perAccount = new Map<string, number>();
  const jobIds = new Set<string>();
  for await (const matching of leadsHolding(db, entry)) {
    // One statement: the leads, and each job's count of erased leads (its delivered count stays what was billed).
    await db.sql.query(
      `WITH gone AS (
         DELETE FROM leads l USING unnest($1::text[], $2::int[]) AS d(job_id, position)
         WHERE l.job_id = d.job_id AND l.position = d.position RETURNING l.job_id
       )
       UPDATE jobs j SET leads_erased = j.leads_erased + g.n FROM (SELECT job_id, count(*)::int AS n FROM gone GROUP BY job_id) g
       WHERE j.id = g.job_id`,
      [matching.map((r) => r.job_id), matching.map((r) => r.position)],
    );
    for (const r of matching) {
      perAccount.set(r.account_id, (perAccount.get(r.account_id) ?? 0) + 1);
      jobIds.add(r.job_id);
    }
  }
  // A webhook attempt keeps the first bytes of the receiver's answer, which may echo anything: an excerpt that
  // may hold the subject is cleared (no confirmation needed: losing a debugging excerpt on a coincidence is harmless).
  const clearing = excerptClearing(entry);
  const cleared = await db.sql.query(clearing.sql, clearing.params);
  // Every API process checks its kept bodies against the erasure epoch the deletes raised at most this long
  // ago: once waited out, no process can serve a body that held the subject (decision 031).
  if (jobIds.size > 0) await new Promise((resolve) => setTimeout(resolve, ERASURE_EPOCH_MAX_AGE_MS));
  const list = [...perAccount.entries()]
    .map(([accountId, leads]) => ({ accountId, leads }))
    .sort((a, b) => a.accountId.localeCompare(b.accountId));
  return {
    perAccount: list,
    leads: list.reduce((n, a) => n + a.leads, 0),
    jobIds: [...jobIds],
    newlySuppressed,
    webhookExcerptsCleared: cleared.rowCount ?? 0,
  };
}
