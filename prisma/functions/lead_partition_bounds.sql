-- lead_partition_bounds: the partitions of leads (decision 046) and the range of job_created_at each holds, from
-- PostgreSQL's own record of their bounds; o_lower is null for leads_legacy's MINVALUE.
-- Called by: ensure_lead_partitions and drop_expired_lead_partition (both here), tests and the bench.
-- Locks: none (reads the catalog).
-- Guarantees: one row per partition attached when the statement began, oldest first.

CREATE OR REPLACE FUNCTION "lead_partition_bounds"()
RETURNS TABLE ("o_partition" TEXT, "o_lower" TIMESTAMPTZ, "o_upper" TIMESTAMPTZ)
LANGUAGE sql STABLE AS $$
  SELECT b.name, CASE WHEN b.m[1] = 'MINVALUE' THEN NULL ELSE btrim(b.m[1], '''')::TIMESTAMPTZ END,
    btrim(b.m[2], '''')::TIMESTAMPTZ
  FROM (
    SELECT c.relname::TEXT AS name, regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \((.*)\) TO \((.*)\)') AS m
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'public.leads'::regclass
  ) b
  ORDER BY 2 NULLS FIRST
$$;
