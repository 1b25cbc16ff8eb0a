-- ensure_lead_partitions: creates the weekly partitions of leads (decision 046) that are missing from this week to
-- p_weeks_ahead weeks after it, so a job's leads always have a partition to go to. A week runs from Monday 00:00 UTC;
-- its partition is leads_YYYYMMDD, holding the leads of the jobs created that week, with its own unique indexes
-- (job_id, dedup_key) and (job_id, position) (all of a job's leads are in one partition, so they hold for the table)
-- and a primary key on id. A week leads_legacy covers (before the migration's cutover) gets none.
-- Called by: apps/worker/src/lead-retention-sweep.ts (the fleet's hourly sweep, one worker per period, whatever
--   LEAD_RETENTION_DAYS), through packages/db/src/lead-partitions.ts. SECURITY DEFINER: the runtime role may not
--   create tables (decision 035); this function creates only these, named from dates.
-- Locks: the new, empty table (ACCESS EXCLUSIVE) and, to ATTACH it, SHARE UPDATE EXCLUSIVE on leads (reads and
--   writes go on) and SHARE ROW EXCLUSIVE on jobs (the foreign key; it waits for writes to jobs, milliseconds), with
--   a lock_timeout of 2 s so it never queues the hot path behind a long transaction for long: it fails, and the next
--   run tries again (p_weeks_ahead leaves weeks of margin).
-- Guarantees: idempotent; each partition it creates has the privileges leads has; returns the partitions it created.

CREATE OR REPLACE FUNCTION "ensure_lead_partitions"(p_weeks_ahead INTEGER)
RETURNS SETOF TEXT
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  v_this_week TIMESTAMPTZ := date_trunc('week', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  v_week TIMESTAMPTZ;
  v_name TEXT;
  v_grant RECORD;
BEGIN
  PERFORM set_config('lock_timeout', '2s', true);
  FOR i IN 0..GREATEST(p_weeks_ahead, 0) LOOP
    v_week := v_this_week + make_interval(days => 7 * i);
    CONTINUE WHEN EXISTS (
      SELECT 1 FROM "lead_partition_bounds"() b
      WHERE (b."o_lower" IS NULL OR b."o_lower" < v_week + interval '7 days') AND b."o_upper" > v_week
    );
    v_name := 'leads_' || to_char(v_week AT TIME ZONE 'UTC', 'YYYYMMDD');
    EXECUTE format('CREATE TABLE %I (LIKE "leads" INCLUDING DEFAULTS)', v_name);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY ("id"), ADD CONSTRAINT %I UNIQUE ("job_id", "dedup_key"), ADD CONSTRAINT %I UNIQUE ("job_id", "position")',
      v_name, v_name || '_pkey', v_name || '_job_id_dedup_key_key', v_name || '_job_id_position_key');
    EXECUTE format('ALTER TABLE "leads" ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', v_name, v_week, v_week + interval '7 days');
    -- What leads grants, the partition grants (grant_runtime_role's, made after a migration, covers only the
    -- partitions there were): the service reads through the parent, but pg_dump as the runtime role reads each one.
    FOR v_grant IN
      SELECT a.privilege_type, a.grantee FROM pg_class c, aclexplode(c.relacl) a
      WHERE c.oid = 'public.leads'::regclass AND a.grantee <> c.relowner
    LOOP
      EXECUTE format('GRANT %s ON %I TO %s', v_grant.privilege_type, v_name,
        CASE WHEN v_grant.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(v_grant.grantee)) END);
    END LOOP;
    RETURN NEXT v_name;
  END LOOP;
END
$$;
