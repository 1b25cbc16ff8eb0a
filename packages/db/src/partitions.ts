import type { Database } from './client';

/**
 * The tables partitioned by week (decisions 046 and 053): leads by their job's created_at, audit_events and
 * webhook_deliveries by their own, webhook_attempts by their delivery's. account_deliveries is not, for the reasons
 * decision 053 gives.
 */
export const WEEKLY_PARTITIONED_TABLES = ['leads', 'audit_events', 'webhook_deliveries', 'webhook_attempts'] as const;

export type WeeklyPartitionedTable = (typeof WEEKLY_PARTITIONED_TABLES)[number];

/** How many weeks ahead the worker keeps partitions of each (ensure_weekly_partitions.sql). */
export const PARTITION_WEEKS_AHEAD = 4;

/** A partition of a table partitioned by week and the range of its key; `lower` is null for the legacy partition. */
export interface WeeklyPartition {
  partition: string;
  lower: Date | null;
  upper: Date;
}

/** The partitions of `table`, oldest first (partition_bounds.sql). */
export async function partitionBounds(db: Database, table: WeeklyPartitionedTable): Promise<WeeklyPartition[]> {
  const { rows } = await db.sql.query<{ o_partition: string; o_lower: Date | null; o_upper: Date }>('SELECT * FROM partition_bounds($1)', [
    table,
  ]);
  return rows.map((row) => ({ partition: row.o_partition, lower: row.o_lower, upper: row.o_upper }));
}

/**
 * Creates the weekly partitions missing from this week to `weeksAhead` after it, for every table partitioned by week
 * (the one home of "weeks ahead": ensure_weekly_partitions.sql), so every row written meanwhile has one; returns
 * those it created. Idempotent; safe on several workers. A table whose partitions could not be made this time (a
 * long transaction held it past the lock timeout) does not stop the others: its error is thrown after them.
 */
export async function ensureWeeklyPartitions(db: Database, weeksAhead = PARTITION_WEEKS_AHEAD): Promise<string[]> {
  const created: string[] = [];
  let failure: unknown;
  for (const table of WEEKLY_PARTITIONED_TABLES) {
    try {
      const { rows } = await db.sql.query<{ name: string }>('SELECT name FROM ensure_weekly_partitions($1, $2) AS name', [
        table,
        weeksAhead,
      ]);
      created.push(...rows.map((row) => row.name));
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
  return created;
}

/**
 * Drops, oldest first, each weekly partition of `table` all of whose rows are older than `days` before `now` (the
 * database's now when null), as drop_partition_past.sql allows (it keeps a week that must stay, and webhook_deliveries'
 * week goes with its attempts'): the disk is freed at once. A week whose lock was not had in time
 * (lock_not_available) ends the drops for this run with `lockTimedOut`: the next run tries again, and the caller's
 * row-by-row batches still run.
 */
export async function dropWeeksPast(
  db: Database,
  table: 'audit_events' | 'webhook_deliveries',
  days: number,
  now: Date | null,
): Promise<{ partitions: string[]; lockTimedOut: boolean }> {
  const dropped = { partitions: [] as string[], lockTimedOut: false };
  for (;;) {
    try {
      const { rows } = await db.sql.query<{ dropped: string | null }>(
        `SELECT drop_partition_past($3, COALESCE($2::timestamptz, now()) - make_interval(days => $1)) AS dropped`,
        [days, now, table],
      );
      const name = rows[0]!.dropped;
      if (!name) return dropped;
      dropped.partitions.push(name);
    } catch (error) {
      if ((error as { code?: string }).code !== '55P03') throw error;
      dropped.lockTimedOut = true;
      return dropped;
    }
  }
}
