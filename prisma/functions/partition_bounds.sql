-- partition_bounds: the partitions of a table partitioned by week (decision 046: leads; decision 053: audit_events)
-- and the range of its partition key each holds, from PostgreSQL's own record of their bounds; o_lower is null for
-- the legacy partition's MINVALUE.
-- Called by: ensure_weekly_partitions, drop_partition_past, lead_partition_bounds (and through it
--   drop_expired_lead_partition), tests and the bench.
-- Locks: none (reads the catalog).
-- Guarantees: one row per partition attached when the statement began, oldest first; no row for a table that is
--   not partitioned.

CREATE OR REPLACE FUNCTION "partition_bounds"(p_parent TEXT)
RETURNS TABLE ("o_partition" TEXT, "o_lower" TIMESTAMPTZ, "o_upper" TIMESTAMPTZ)
LANGUAGE sql STABLE AS $$
  SELECT b.name, CASE WHEN b.m[1] = 'MINVALUE' THEN NULL ELSE btrim(b.m[1], '''')::TIMESTAMPTZ END,
    btrim(b.m[2], '''')::TIMESTAMPTZ
  FROM (
    SELECT c.relname::TEXT AS name, regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \((.*)\) TO \((.*)\)') AS m
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = to_regclass('public.' || quote_ident(p_parent))
  ) b
  ORDER BY 2 NULLS FIRST
$$;
