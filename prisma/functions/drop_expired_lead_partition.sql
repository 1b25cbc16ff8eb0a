-- drop_expired_lead_partition: lead retention by whole partitions (decision 046). Drops the oldest partition of leads
-- whose every job is past LEAD_RETENTION_DAYS (finished more than p_days before p_now) or expired already, and which
-- no job created from now on can reach (its upper bound is past), marking its jobs' leads expired in the same
-- transaction: the disk is freed at once, no row is deleted one by one, and a job is never seen marked with leads
-- left nor emptied unmarked. Jobs in a partition that still has a job within the window are left to
-- lead-retention.ts's batches, which delete rows.
-- Called by: packages/db/src/lead-retention.ts (expireLeads), before its batches; p_now is now() but in tests.
--   SECURITY DEFINER: only the owner may drop a table (decision 035); this drops only partitions of leads.
-- Locks: the partition's jobs not yet marked (row locks, UPDATE), erasure_epoch's row, then ACCESS EXCLUSIVE on
--   leads and the partition for the DROP, milliseconds, with a lock_timeout of 2 s (an error: the next run tries
--   again). DETACH CONCURRENTLY would take a weaker lock on leads, but the detached table's foreign key then needs
--   ACCESS EXCLUSIVE on jobs to be dropped, a busier table.
-- Guarantees: at most one partition per call; returns it, the jobs marked and their leads (from the jobs' counts:
--   delivered less erased), or no row when none is due. Raises erasure_epoch as a deletion of leads does.

CREATE OR REPLACE FUNCTION "drop_expired_lead_partition"(p_days INTEGER, p_now TIMESTAMPTZ DEFAULT now())
RETURNS TABLE ("o_partition" TEXT, "o_job_ids" TEXT[], "o_leads" BIGINT)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  v_cutoff TIMESTAMPTZ := p_now - make_interval(days => p_days);
  v_partition TEXT;
  v_lower TIMESTAMPTZ;
  v_upper TIMESTAMPTZ;
  v_job_ids TEXT[];
  v_leads BIGINT;
BEGIN
  -- The unexpired jobs are those within the window and those still open (jobs(leads_expired_at, finished_at)).
  SELECT b."o_partition", b."o_lower", b."o_upper" INTO v_partition, v_lower, v_upper
  FROM "lead_partition_bounds"() b
  WHERE b."o_upper" <= p_now
    AND NOT EXISTS (
      SELECT 1 FROM "jobs" j
      WHERE j."leads_expired_at" IS NULL AND (j."finished_at" IS NULL OR j."finished_at" >= v_cutoff)
        AND j."created_at" < b."o_upper" AND (b."o_lower" IS NULL OR j."created_at" >= b."o_lower"))
  ORDER BY b."o_upper"
  LIMIT 1;
  IF v_partition IS NULL THEN RETURN; END IF;

  PERFORM set_config('lock_timeout', '2s', true);
  WITH marked AS (
    UPDATE "jobs" j SET "leads_expired_at" = now()
    WHERE j."leads_expired_at" IS NULL AND j."created_at" < v_upper AND (v_lower IS NULL OR j."created_at" >= v_lower)
    RETURNING j."id", j."delivered_count" - j."leads_erased" AS leads
  )
  SELECT COALESCE(array_agg(m."id"), '{}'), COALESCE(sum(m.leads), 0) INTO v_job_ids, v_leads FROM marked m;
  UPDATE "erasure_epoch" SET "epoch" = "epoch" + 1 WHERE "id" = 1;
  EXECUTE format('DROP TABLE %I', v_partition);
  RETURN QUERY SELECT v_partition, v_job_ids, v_leads;
END
$$;
