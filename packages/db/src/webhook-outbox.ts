import type { Database } from './client';

// The outbox sweep's statements (decision 016): pending deliveries whose queue entry may have been lost.

/** Pending deliveries (of one account, or of all) whose next attempt was due before `dueBefore`: candidates for the outbox sweep. */
export async function overdueWebhookDeliveries(
  db: Database,
  dueBefore: Date,
  limit: number,
  accountId: string | null = null,
): Promise<Array<{ id: string; nextAttemptAt: Date }>> {
  const { rows } = await db.sql.query<{ id: string; next_attempt_at: Date }>(
    `SELECT id, next_attempt_at FROM webhook_deliveries
     WHERE status = 'pending' AND next_attempt_at < $1 AND ($3::text IS NULL OR account_id = $3)
     ORDER BY next_attempt_at LIMIT $2`,
    [dueBefore, limit, accountId],
  );
  return rows.map((row) => ({ id: row.id, nextAttemptAt: row.next_attempt_at }));
}

/** Which of these deliveries are still pending (read again after their queue was asked). */
export async function pendingWebhookDeliveries(
  db: Database,
  ids: string[],
): Promise<Array<{ id: string; accountId: string; nextAttemptAt: Date }>> {
  const { rows } = await db.sql.query<{ id: string; account_id: string; next_attempt_at: Date }>(
    `SELECT id, account_id, next_attempt_at FROM webhook_deliveries WHERE id = ANY($1) AND status = 'pending'`,
    [ids],
  );
  return rows.map((row) => ({ id: row.id, accountId: row.account_id, nextAttemptAt: row.next_attempt_at }));
}
