import { MAX_WEBHOOK_ENDPOINTS, WEBHOOK_SECRET_OVERLAP_MS, newWebhookEndpointId, type SubscribableEvent } from '@leadgen/domain';
import type { Database } from './client';
import { secretContext } from './secret-box';

// Webhook endpoints and the account's default webhook secret (decision 016): cold paths, one
// statement each but the creation, which counts an account's endpoints under its row lock.

export interface WebhookEndpointRecord {
  id: string;
  accountId: string;
  url: string;
  description: string | null;
  events: SubscribableEvent[];
  disabledAt: Date | null;
  /** disabled_by_owner, gone, failing */
  disabledReason: string | null;
  failingSince: Date | null;
  /** when the secret before the last rotation stops signing deliveries */
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

interface EndpointRow {
  id: string;
  account_id: string;
  url: string;
  description: string | null;
  events: SubscribableEvent[];
  disabled_at: Date | null;
  disabled_reason: string | null;
  failing_since: Date | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

// Never the secrets: they leave the database only for the one answer that shows them, and for signing.
const ENDPOINT_COLUMNS =
  'id, account_id, url, description, events, disabled_at, disabled_reason, failing_since, previous_secret_expires_at, created_at, updated_at';

function endpointFromRow(row: EndpointRow): WebhookEndpointRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    url: row.url,
    description: row.description,
    events: row.events,
    disabledAt: row.disabled_at,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    previousSecretExpiresAt:
      row.previous_secret_expires_at && row.previous_secret_expires_at > new Date() ? row.previous_secret_expires_at : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface NewWebhookEndpoint {
  url: string;
  events: SubscribableEvent[];
  description: string | null;
  secret: string;
}

/** The new endpoint, or null when the account has MAX_WEBHOOK_ENDPOINTS already. */
export async function createWebhookEndpoint(
  db: Database,
  accountId: string,
  endpoint: NewWebhookEndpoint,
): Promise<WebhookEndpointRecord | null> {
  const client = await db.sql.connect();
  try {
    await client.query('BEGIN');
    // The account's row lock makes two concurrent creations count one after the other (FOR NO KEY UPDATE: the
    // account's job creations and settlements, which take KEY SHARE, are not behind it).
    await client.query('SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE', [accountId]);
    const id = newWebhookEndpointId();
    const { rows } = await client.query<EndpointRow>(
      `INSERT INTO webhook_endpoints (id, account_id, url, description, events, secret)
       SELECT $1, $2, $3, $4, $5, $6 WHERE (SELECT count(*) FROM webhook_endpoints WHERE account_id = $2) < $7
       RETURNING ${ENDPOINT_COLUMNS}`,
      [
        id,
        accountId,
        endpoint.url,
        endpoint.description,
        JSON.stringify(endpoint.events),
        db.secrets.seal(endpoint.secret, secretContext.endpoint(id)),
        MAX_WEBHOOK_ENDPOINTS,
      ],
    );
    await client.query('COMMIT');
    return rows[0] ? endpointFromRow(rows[0]) : null;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export async function listWebhookEndpoints(db: Database, accountId: string): Promise<WebhookEndpointRecord[]> {
  const { rows } = await db.sql.query<EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = $1 ORDER BY created_at, id`,
    [accountId],
  );
  return rows.map(endpointFromRow);
}

/** An endpoint of this account, or null: another account's is indistinguishable from none. */
export async function findWebhookEndpoint(db: Database, accountId: string, id: string): Promise<WebhookEndpointRecord | null> {
  const { rows } = await db.sql.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND account_id = $2`, [
    id,
    accountId,
  ]);
  return rows[0] ? endpointFromRow(rows[0]) : null;
}

export interface WebhookEndpointChange {
  url?: string;
  events?: SubscribableEvent[];
  description?: string | null;
  /** true clears a disablement (and the failure streak); false disables it as `disabled_by_owner` */
  enabled?: boolean;
}

export async function updateWebhookEndpoint(
  db: Database,
  accountId: string,
  id: string,
  change: WebhookEndpointChange,
): Promise<WebhookEndpointRecord | null> {
  const { rows } = await db.sql.query<EndpointRow>(
    `UPDATE webhook_endpoints SET
       url = COALESCE($3, url),
       events = COALESCE($4::jsonb, events),
       description = CASE WHEN $5 THEN $6 ELSE description END,
       disabled_at = CASE WHEN $7::boolean IS NULL THEN disabled_at WHEN $7 THEN NULL ELSE COALESCE(disabled_at, now()) END,
       disabled_reason = CASE WHEN $7::boolean IS NULL THEN disabled_reason WHEN $7 THEN NULL WHEN disabled_at IS NULL THEN 'disabled_by_owner' ELSE disabled_reason END,
       failing_since = CASE WHEN $7 THEN NULL ELSE failing_since END,
       updated_at = now()
     WHERE id = $1 AND account_id = $2
     RETURNING ${ENDPOINT_COLUMNS}`,
    [
      id,
      accountId,
      change.url ?? null,
      change.events ? JSON.stringify(change.events) : null,
      change.description !== undefined,
      change.description ?? null,
      change.enabled ?? null,
    ],
  );
  return rows[0] ? endpointFromRow(rows[0]) : null;
}

/** Deletes the endpoint and its deliveries; false when the account has no such endpoint. */
export async function deleteWebhookEndpoint(db: Database, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.sql.query('DELETE FROM webhook_endpoints WHERE id = $1 AND account_id = $2', [id, accountId]);
  return (rowCount ?? 0) > 0;
}

/** A new secret; the current one keeps signing (as a second signature) for WEBHOOK_SECRET_OVERLAP_MS. */
export async function rotateWebhookEndpointSecret(
  db: Database,
  accountId: string,
  id: string,
  secret: string,
): Promise<WebhookEndpointRecord | null> {
  const { rows } = await db.sql.query<EndpointRow>(
    `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = now() + make_interval(secs => $4 / 1000.0),
       secret = $3, updated_at = now()
     WHERE id = $1 AND account_id = $2
     RETURNING ${ENDPOINT_COLUMNS}`,
    [id, accountId, db.secrets.seal(secret, secretContext.endpoint(id)), WEBHOOK_SECRET_OVERLAP_MS],
  );
  return rows[0] ? endpointFromRow(rows[0]) : null;
}

export interface RevealedSecret {
  secret: string;
  createdAt: Date;
  previousSecretExpiresAt: Date | null;
}

/**
 * The account's default webhook secret, created now if no job has needed it yet, shown once: null
 * when it has been shown already (a rotation makes and shows a new one).
 */
export async function revealDefaultWebhookSecret(db: Database, accountId: string, candidate: string): Promise<RevealedSecret | null> {
  await db.sql.query('INSERT INTO account_webhook_secrets (account_id, secret) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    accountId,
    db.secrets.seal(candidate, secretContext.accountDefault(accountId)),
  ]);
  const { rows } = await db.sql.query<{ secret: string; created_at: Date; previous_secret_expires_at: Date | null }>(
    `UPDATE account_webhook_secrets SET revealed_at = now() WHERE account_id = $1 AND revealed_at IS NULL
     RETURNING secret, created_at, previous_secret_expires_at`,
    [accountId],
  );
  const row = rows[0];
  return row
    ? {
        secret: db.secrets.open(row.secret, secretContext.accountDefault(accountId)),
        createdAt: row.created_at,
        previousSecretExpiresAt: row.previous_secret_expires_at,
      }
    : null;
}

/** A new default secret, shown now; the one before keeps signing for WEBHOOK_SECRET_OVERLAP_MS. */
export async function rotateDefaultWebhookSecret(db: Database, accountId: string, secret: string): Promise<RevealedSecret> {
  const { rows } = await db.sql.query<{ secret: string; created_at: Date; previous_secret_expires_at: Date | null }>(
    `INSERT INTO account_webhook_secrets AS s (account_id, secret, revealed_at) VALUES ($1, $2, now())
     ON CONFLICT (account_id) DO UPDATE SET previous_secret = s.secret,
       previous_secret_expires_at = now() + make_interval(secs => $3 / 1000.0), secret = EXCLUDED.secret, revealed_at = now(), created_at = now()
     RETURNING secret, created_at, previous_secret_expires_at`,
    [accountId, db.secrets.seal(secret, secretContext.accountDefault(accountId)), WEBHOOK_SECRET_OVERLAP_MS],
  );
  const row = rows[0]!;
  return {
    secret: db.secrets.open(row.secret, secretContext.accountDefault(accountId)),
    createdAt: row.created_at,
    previousSecretExpiresAt: row.previous_secret_expires_at,
  };
}
