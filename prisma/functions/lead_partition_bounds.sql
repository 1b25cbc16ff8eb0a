-- lead_partition_bounds: the partitions of leads (decision 046) and the range of job_created_at each holds;
-- o_lower is null for leads_legacy's MINVALUE. partition_bounds('leads'), under the name the release before called.
-- Depends on: partition_bounds
-- Called by: drop_expired_lead_partition (here), tests and the bench.
-- Locks: none (reads the catalog).
-- Guarantees: one row per partition attached when the statement began, oldest first.

CREATE OR REPLACE FUNCTION "lead_partition_bounds"()
RETURNS TABLE ("o_partition" TEXT, "o_lower" TIMESTAMPTZ, "o_upper" TIMESTAMPTZ)
LANGUAGE sql STABLE AS $$
  SELECT * FROM "partition_bounds"('leads')
$$;
