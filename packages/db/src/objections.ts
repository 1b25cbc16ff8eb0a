import {
  newWebhookSecret,
  SUBJECT_OBJECTED_EVENT,
  type ObjectionKind,
  type ObjectionNoticeIdentifiers,
  type ObjectionProof,
  type ObjectionStatus,
} from '@leadgen/domain';
import { inTransaction, type Database } from './client';
import { secretContext } from './secret-box';
import type { SubjectHolder } from './subject-erasure';
import type { ReadSide } from './read-replica';

// Objections by the data subjects (decision 042): the requests, their proof of control, and the notices the
// worker records when it applies a confirmed one. Statements only; the rules are in the API's use cases and
// the worker's objection sweep.

export interface ObjectionRecord {
  id: string;
  kind: ObjectionKind;
  value: string;
  status: ObjectionStatus;
  proofToken: string | null;
  expiresAt: Date;
  confirmedBy: ObjectionProof | null;
  confirmedAt: Date | null;
  appliedAt: Date | null;
  leadsErased: number | null;
  accountsNoticed: number | null;
  createdAt: Date;
}

interface ObjectionRow {
  id: string;
  kind: ObjectionKind;
  value: string;
  status: ObjectionStatus;
  proof_token: string | null;
  expires_at: Date;
  confirmed_by: ObjectionProof | null;
  confirmed_at: Date | null;
  applied_at: Date | null;
  leads_erased: number | null;
  accounts_noticed: number | null;
  created_at: Date;
}

const COLUMNS =
  'id, kind::text AS kind, value, status, proof_token, expires_at, confirmed_by, confirmed_at, applied_at, leads_erased, accounts_noticed, created_at';

const fromRow = (row: ObjectionRow): ObjectionRecord => ({
  id: row.id,
  kind: row.kind,
  value: row.value,
  status: row.status,
  proofToken: row.proof_token,
  expiresAt: row.expires_at,
  confirmedBy: row.confirmed_by,
  confirmedAt: row.confirmed_at,
  appliedAt: row.applied_at,
  leadsErased: row.leads_erased,
  accountsNoticed: row.accounts_noticed,
  createdAt: row.created_at,
});

export async function insertObjection(
  db: Database,
  objection: { id: string; kind: ObjectionKind; value: string; tokenHash: string | null; proofToken: string | null; expiresAt: Date },
): Promise<void> {
  await db.sql.query(
    `INSERT INTO objections (id, kind, value, token_hash, proof_token, expires_at) VALUES ($1, $2::"SuppressionKind", $3, $4, $5, $6)`,
    [objection.id, objection.kind, objection.value, objection.tokenHash, objection.proofToken, objection.expiresAt],
  );
}

/**
 * A domain's or phone's pending objection, which every request for the subject is answered with (decision 042): the
 * one there is, else `objection` inserted. The partial unique index objections_pending_subject_key holds one pending
 * objection per domain or phone, so requests at once all get the same row: the insert meets the other's row
 * (ON CONFLICT waits for its transaction) and the row is read. One that expired unproven (not yet purged, or a
 * phone's, kept for the operator) is renewed instead: its id and token kept, its expiry `objection.expiresAt`.
 * `reused`: the subject's pending objection was there and unexpired.
 */
export async function openPendingObjection(
  db: Database,
  objection: { id: string; kind: 'domain' | 'phone'; value: string; proofToken: string | null; expiresAt: Date },
): Promise<{ objection: ObjectionRecord; reused: boolean }> {
  // Twice at most: the row met may be confirmed (or purged) between the insert and the read; the second insert then succeeds.
  for (let attempt = 0; attempt < 2; attempt++) {
    const { rows } = await db.sql.query<ObjectionRow>(
      `INSERT INTO objections (id, kind, value, proof_token, expires_at) VALUES ($1, $2::"SuppressionKind", $3, $4, $5)
       ON CONFLICT (kind, value) WHERE status = 'pending' AND kind <> 'email'::"SuppressionKind"
       DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE objections.expires_at <= now()
       RETURNING ${COLUMNS}`,
      [objection.id, objection.kind, objection.value, objection.proofToken, objection.expiresAt],
    );
    if (rows[0]) return { objection: fromRow(rows[0]), reused: false };
    const pending = await pendingObjectionFor(db, objection.kind, objection.value);
    if (pending) return { objection: pending, reused: true };
  }
  throw new Error(`the pending ${objection.kind} objection changed twice while it was opened`);
}

/** The pending, unexpired objection an email link's token opens (the page's GET: it changes nothing). */
export async function objectionByLink(db: Database, tokenHash: string): Promise<ObjectionRecord | null> {
  const { rows } = await db.sql.query<ObjectionRow>(
    `SELECT ${COLUMNS} FROM objections WHERE token_hash = $1 AND status = 'pending' AND expires_at > now()`,
    [tokenHash],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Confirms through an email link: one statement, so a link works once however many tabs press the button. */
export async function confirmObjectionByLink(db: Database, tokenHash: string): Promise<ObjectionRecord | null> {
  const { rows } = await db.sql.query<ObjectionRow>(
    `UPDATE objections SET status = 'confirmed', confirmed_by = 'email_link', confirmed_at = now(), token_hash = NULL
     WHERE token_hash = $1 AND status = 'pending' AND expires_at > now() RETURNING ${COLUMNS}`,
    [tokenHash],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function findObjection(db: Database, id: string): Promise<ObjectionRecord | null> {
  const { rows } = await db.sql.query<ObjectionRow>(`SELECT ${COLUMNS} FROM objections WHERE id = $1`, [id]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/**
 * Confirms a pending objection by id: a domain proven by its DNS or its website (before its token expired), or
 * any pending one by the operator (a phone has no self-service proof). Null when it was not pending.
 */
export async function confirmObjection(db: Database, id: string, by: ObjectionProof): Promise<ObjectionRecord | null> {
  const { rows } = await db.sql.query<ObjectionRow>(
    `UPDATE objections SET status = 'confirmed', confirmed_by = $2, confirmed_at = now(), token_hash = NULL
     WHERE id = $1 AND status = 'pending' AND ($2 = 'operator' OR expires_at > now()) RETURNING ${COLUMNS}`,
    [id, by],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

/** The operator's view: newest first, of one status or all. */
export async function listObjections(db: ReadSide, options: { status?: ObjectionStatus; limit: number }): Promise<ObjectionRecord[]> {
  const { rows } = await db.sql.query<ObjectionRow>(
    `SELECT ${COLUMNS} FROM objections WHERE ($1::text IS NULL OR status = $1) ORDER BY created_at DESC, id LIMIT $2`,
    [options.status ?? null, options.limit],
  );
  return rows.map(fromRow);
}

/**
 * Takes one confirmed objection not yet applied for `leaseMs` (SKIP LOCKED: each worker of the fleet takes a
 * different one); a worker that dies holding it lets the lease lapse and another takes it again.
 */
export async function claimConfirmedObjection(db: Database, leaseMs: number): Promise<ObjectionRecord | null> {
  const { rows } = await db.sql.query<ObjectionRow>(
    `UPDATE objections SET applying_until = now() + make_interval(secs => $1::double precision / 1000)
     WHERE id = (
       SELECT id FROM objections WHERE status = 'confirmed' AND (applying_until IS NULL OR applying_until < now())
       ORDER BY confirmed_at LIMIT 1 FOR UPDATE SKIP LOCKED
     ) RETURNING ${COLUMNS}`,
    [leaseMs],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Gives a claimed objection back after a failed apply, to be taken again in `retryInMs` rather than when the lease ends. */
export async function releaseObjectionClaim(db: Database, id: string, retryInMs: number): Promise<void> {
  await db.sql.query(
    `UPDATE objections SET applying_until = now() + make_interval(secs => $2::double precision / 1000) WHERE id = $1 AND status = 'confirmed'`,
    [id, retryInMs],
  );
}

/**
 * Deletes the email and domain objections never proven whose link or token expired: an unproven request keeps
 * a value nobody showed to be theirs, so it goes once it can no longer be confirmed. A phone's waits for the operator.
 */
export async function purgeExpiredObjections(db: Database): Promise<number> {
  const { rowCount } = await db.sql.query(
    `DELETE FROM objections WHERE status = 'pending' AND kind <> 'phone'::"SuppressionKind" AND expires_at < now()`,
  );
  return rowCount ?? 0;
}

export async function markObjectionApplied(db: Database, id: string, outcome: { leadsErased: number; accountsNoticed: number }) {
  await db.sql.query(
    `UPDATE objections SET status = 'applied', applied_at = now(), applying_until = NULL, leads_erased = $2, accounts_noticed = $3
     WHERE id = $1 AND status = 'confirmed'`,
    [id, outcome.leadsErased, outcome.accountsNoticed],
  );
}

/** What one account is told (the feed's item and the webhook's data are the same object). */
export interface ObjectionNoticeRecord {
  id: string;
  objectionId: string;
  accountId: string;
  kind: ObjectionKind;
  value: string;
  identifiers: ObjectionNoticeIdentifiers;
  jobIds: string[];
  createdAt: Date;
}

interface NoticeRow {
  id: string;
  objection_id: string;
  account_id: string;
  kind: ObjectionKind;
  value: string;
  identifiers: ObjectionNoticeIdentifiers;
  job_ids: string[];
  created_at: Date;
}

const noticeFromRow = (row: NoticeRow): ObjectionNoticeRecord => ({
  id: String(row.id),
  objectionId: row.objection_id,
  accountId: row.account_id,
  kind: row.kind,
  value: row.value,
  identifiers: row.identifiers,
  jobIds: row.job_ids,
  createdAt: row.created_at,
});

/** The webhook's `data`: the notice as the feed shows it. */
export function objectionNoticeData(notice: ObjectionNoticeRecord): Record<string, unknown> {
  return {
    noticeId: notice.id,
    objectionId: notice.objectionId,
    subject: { kind: notice.kind, value: notice.value },
    identifiers: notice.identifiers,
    jobIds: notice.jobIds,
    objectedAt: notice.createdAt.toISOString(),
  };
}

/**
 * Records, in one transaction, a notice per account that holds the subject and its subject.objected deliveries
 * (the outbox: every enabled endpoint of the account, and the distinct webhookUrls of the jobs that delivered
 * the subject). An account noticed before (a retried apply) gets nothing twice. Returns the ids of every delivery
 * of the objection still pending, and the notices made now.
 */
export async function recordObjectionNotices(
  db: Database,
  objection: { id: string; kind: ObjectionKind; value: string },
  holders: SubjectHolder[],
): Promise<{ notices: ObjectionNoticeRecord[]; deliveryIds: string[] }> {
  return inTransaction(db, async (client) => {
    const notices: ObjectionNoticeRecord[] = [];
    const deliveryIds: string[] = [];
    for (const holder of holders) {
      const { rows } = await client.query<NoticeRow>(
        `INSERT INTO objection_notices (objection_id, account_id, kind, value, identifiers, job_ids)
         VALUES ($1, $2, $3::"SuppressionKind", $4, $5::jsonb, $6::jsonb) ON CONFLICT (objection_id, account_id) DO NOTHING
         RETURNING id, objection_id, account_id, kind::text AS kind, value, identifiers, job_ids, created_at`,
        [
          objection.id,
          holder.accountId,
          objection.kind,
          objection.value,
          JSON.stringify(holder.identifiers),
          JSON.stringify(holder.jobIds),
        ],
      );
      const notice = rows[0] ? noticeFromRow(rows[0]) : null;
      if (!notice) continue;
      notices.push(notice);
      // A job's webhookUrl is signed with the account's default secret, made now if such a job is told and none exists yet.
      await client.query(
        `INSERT INTO account_webhook_secrets (account_id, secret)
         SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM jobs WHERE id = ANY($3::text[]) AND account_id = $1 AND webhook_url IS NOT NULL)
         ON CONFLICT DO NOTHING`,
        [holder.accountId, db.secrets.seal(newWebhookSecret(), secretContext.accountDefault(holder.accountId)), holder.jobIds],
      );
      const inserted = await client.query<{ id: string }>(
        `INSERT INTO webhook_deliveries (account_id, endpoint_id, url, event_type, event_data)
         SELECT $1, e.id, NULL, $2, $3::jsonb FROM webhook_endpoints e WHERE e.account_id = $1 AND e.disabled_at IS NULL
         UNION ALL
         SELECT DISTINCT $1, NULL::text, j.webhook_url, $2, $3::jsonb FROM jobs j
         WHERE j.id = ANY($4::text[]) AND j.account_id = $1 AND j.webhook_url IS NOT NULL
         RETURNING id`,
        [holder.accountId, SUBJECT_OBJECTED_EVENT, JSON.stringify(objectionNoticeData(notice)), holder.jobIds],
      );
      deliveryIds.push(...inserted.rows.map((row) => row.id));
    }
    // A retried apply (the first failed after recording) enqueues the deliveries still pending too: enqueueing is idempotent.
    const pending = await client.query<{ id: string }>(
      `SELECT id FROM webhook_deliveries WHERE status = 'pending' AND event_type = $1 AND event_data->>'objectionId' = $2`,
      [SUBJECT_OBJECTED_EVENT, objection.id],
    );
    return { notices, deliveryIds: [...new Set([...deliveryIds, ...pending.rows.map((row) => row.id)])] };
  });
}

/** GET /api/v1/privacy/objections: an account's notices, newest first, keyset pages by id. */
export async function listObjectionNotices(
  db: Database,
  accountId: string,
  options: { before?: string; limit: number },
): Promise<ObjectionNoticeRecord[]> {
  const { rows } = await db.sql.query<NoticeRow>(
    `SELECT id, objection_id, account_id, kind::text AS kind, value, identifiers, job_ids, created_at FROM objection_notices
     WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [accountId, options.before ?? null, options.limit],
  );
  return rows.map(noticeFromRow);
}

/** The operator board's counts: objections by status (decision 042). */
export async function countObjectionsByStatus(db: ReadSide): Promise<Record<ObjectionStatus, number>> {
  const { rows } = await db.sql.query<{ status: ObjectionStatus; n: number }>(
    'SELECT status, count(*)::int AS n FROM objections GROUP BY status',
  );
  const counts: Record<ObjectionStatus, number> = { pending: 0, confirmed: 0, applied: 0 };
  for (const row of rows) counts[row.status] = row.n;
  return counts;
}

/**
 * The newest pending, unexpired objection for a subject, if any: a domain's or a phone's requests reuse it, so
 * whoever asks gets the same objection and no one can use up what the subject's owner needs (decision 042).
 */
export async function pendingObjectionFor(db: Database, kind: ObjectionKind, value: string): Promise<ObjectionRecord | null> {
  const { rows } = await db.sql.query<ObjectionRow>(
    `SELECT ${COLUMNS} FROM objections WHERE kind = $1::"SuppressionKind" AND value = $2 AND status = 'pending' AND expires_at > now()
     ORDER BY created_at DESC LIMIT 1`,
    [kind, value],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

/**
 * Deletes the notices older than `days` (OBJECTION_NOTICE_RETENTION_DAYS): a buyer's feed is for acting within the
 * legal delay, not an archive of who objected; the subject stays on the global suppression list. Returns how many.
 */
export async function purgeOldObjectionNotices(db: Database, days: number): Promise<number> {
  const { rowCount } = await db.sql.query(`DELETE FROM objection_notices WHERE created_at < now() - make_interval(days => $1)`, [days]);
  return rowCount ?? 0;
}
