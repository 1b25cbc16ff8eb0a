-- ensure_lead_partitions: creates the weekly partitions of leads (decision 046) that are missing from this week to
-- p_weeks_ahead weeks after it: ensure_weekly_partitions('leads', p_weeks_ahead), the one home of "weeks ahead" for
-- every table partitioned by week (decision 053), under the name the release before called. Each partition gets
-- leads' keys (id), (job_id, dedup_key), (job_id, position), copied from the newest partition.
-- Depends on: ensure_weekly_partitions
-- Called by: packages/db/src/lead-retention.ts (ensureLeadPartitions: tests). SECURITY DEFINER, as the function it
--   calls.
-- Locks: ensure_weekly_partitions'.
-- Guarantees: idempotent; returns the partitions it created.

CREATE OR REPLACE FUNCTION "ensure_lead_partitions"(p_weeks_ahead INTEGER)
RETURNS SETOF TEXT
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  SELECT "ensure_weekly_partitions"('leads', p_weeks_ahead)
$$;
