-- ensure_weekly_partitions: creates the weekly partitions of a table partitioned by week (leads, decision 046;
-- audit_events, webhook_deliveries and webhook_attempts, decision 053) that are missing from this week to p_weeks_ahead weeks after it, so a row always has a
-- partition to go to. A week runs from Monday 00:00 UTC; its partition is <table>_YYYYMMDD. It gets the unique keys
-- the table's newest partition has (a partitioned table's keys are its partitions', decisions 046 and 053: leads
-- (id), (job_id, dedup_key), (job_id, position); audit_events (id); webhook_deliveries (id); webhook_attempts (id),
-- (delivery_id, attempt)) and the foreign keys that are the partition's own, pointed at the same week's partition of
-- the table they point at (webhook_attempts_YYYYMMDD (delivery_id) -> webhook_deliveries_YYYYMMDD (id), decision
-- 053: so a week's attempts and deliveries are dropped together and nothing else refers to them), under its own
-- name, and the parent's CHECK constraints (webhook_deliveries_target); ATTACH gives it the parent's
-- indexes, foreign keys and row triggers (audit_events' append-only trigger) itself. A week the legacy partition
-- covers (before a migration's cutover) gets none.
-- Depends on: partition_bounds
-- Called by: ensure_lead_partitions (here), and packages/db/src/partitions.ts (ensureWeeklyPartitions) from
--   apps/worker/src/lead-retention-sweep.ts: the fleet's hourly sweep, one worker per period, whatever the
--   retentions. SECURITY DEFINER: the runtime role may not create tables (decision 035); this function creates only
--   partitions of the tables it names, named from dates.
-- Locks: the new, empty table (ACCESS EXCLUSIVE) and, to ATTACH it, SHARE UPDATE EXCLUSIVE on the parent (reads and
--   writes go on) and SHARE ROW EXCLUSIVE on a table its foreign key points at (leads: jobs; it waits for writes to
--   jobs, milliseconds; webhook_attempts: the week's new partition of webhook_deliveries, made just before it), with a lock_timeout of 2 s so it never queues the hot path behind a long transaction for
--   long: it fails, and the next run tries again (p_weeks_ahead leaves weeks of margin).
-- Guarantees: idempotent; each partition it creates has the privileges its parent has; returns those it created.

CREATE OR REPLACE FUNCTION "ensure_weekly_partitions"(p_parent TEXT, p_weeks_ahead INTEGER)
RETURNS SETOF TEXT
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  v_this_week TIMESTAMPTZ := date_trunc('week', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  v_week TIMESTAMPTZ;
  v_name TEXT;
  v_template TEXT;
  v_keys INTEGER;
  v_key RECORD;
  v_grant RECORD;
BEGIN
  IF p_parent NOT IN ('leads', 'audit_events', 'webhook_deliveries', 'webhook_attempts') THEN
    RAISE EXCEPTION 'ensure_weekly_partitions: % is not a table partitioned by week', p_parent;
  END IF;
  PERFORM set_config('lock_timeout', '2s', true);
  FOR i IN 0..GREATEST(p_weeks_ahead, 0) LOOP
    v_week := v_this_week + make_interval(days => 7 * i);
    CONTINUE WHEN EXISTS (
      SELECT 1 FROM "partition_bounds"(p_parent) b
      WHERE (b."o_lower" IS NULL OR b."o_lower" < v_week + interval '7 days') AND b."o_upper" > v_week
    );
    v_keys := 0;
    SELECT b."o_partition" INTO v_template FROM "partition_bounds"(p_parent) b ORDER BY b."o_upper" DESC LIMIT 1;
    v_name := p_parent || '_' || to_char(v_week AT TIME ZONE 'UTC', 'YYYYMMDD');
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', v_name, p_parent);
    -- The keys, on the empty table before the ATTACH (the parent has none to give), then its own foreign keys.
    FOR v_key IN
      SELECT con.conname::TEXT AS name, pg_get_constraintdef(con.oid) AS def, con.contype::TEXT AS contype FROM pg_constraint con
      WHERE con.conrelid = to_regclass('public.' || quote_ident(v_template)) AND con.contype IN ('p', 'u', 'f') AND con.conparentid = 0
      ORDER BY con.contype = 'f', con.conname
    LOOP
      IF v_key.contype <> 'f' THEN v_keys := v_keys + 1; END IF;
      EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I %s', v_name,
        CASE WHEN starts_with(v_key.name, v_template || '_') THEN v_name || substr(v_key.name, length(v_template) + 1) ELSE v_name || '_' || v_key.name END,
        -- a foreign key to the template's week of another table: to this week's (the _YYYYMMDD of the name)
        CASE WHEN v_key.contype = 'f' THEN replace(v_key.def, substr(v_template, length(p_parent) + 1) || '(', substr(v_name, length(p_parent) + 1) || '(')
             ELSE v_key.def END);
    END LOOP;
    -- Never a partition without its keys (a template whose keys were unique indexes, not constraints, would give none).
    IF v_keys = 0 THEN
      RAISE EXCEPTION 'ensure_weekly_partitions: % has no key to copy to %', v_template, v_name;
    END IF;
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', p_parent, v_name, v_week, v_week + interval '7 days');
    -- What the parent grants, the partition grants (grant_runtime_role's, made after a migration, covers only the
    -- partitions there were): the service reads through the parent, but pg_dump as the runtime role reads each one.
    FOR v_grant IN
      SELECT a.privilege_type, a.grantee FROM pg_class c, aclexplode(c.relacl) a
      WHERE c.oid = to_regclass('public.' || quote_ident(p_parent)) AND a.grantee <> c.relowner
    LOOP
      EXECUTE format('GRANT %s ON %I TO %s', v_grant.privilege_type, v_name,
        CASE WHEN v_grant.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(v_grant.grantee)) END);
    END LOOP;
    RETURN NEXT v_name;
  END LOOP;
END
$$;
