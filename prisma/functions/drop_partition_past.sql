-- drop_partition_past: retention by whole partitions for a table partitioned by week whose rows expire by their own
-- time, the partition key (audit_events: created_at, AUDIT_RETENTION_DAYS; decision 053). Drops the oldest partition
-- all of whose range is before p_before (its upper bound is at or before it): every row in it is past the retention,
-- the disk is freed at once, and no row is deleted one by one. The partition at the window's edge is left to the
-- caller's batches, which delete rows. (Leads expire by their job's end, not by their key:
-- drop_expired_lead_partition chooses their partition.)
-- Depends on: partition_bounds
-- Called by: packages/db/src/audit-events.ts (purgeAuditEvents), before its batches. SECURITY DEFINER: only the
--   owner may drop a table (decision 035), and the runtime role may not delete an audit event but in the purge
--   (audit_events_append_only); this drops only partitions of the tables it names. It gives the runtime role no
--   more than the purge's own `leadgen.audit_purge` setting does (p_before is the caller's: tests pass a later time).
-- Locks: ACCESS EXCLUSIVE on the parent and the partition for the DROP, milliseconds, with a lock_timeout of 2 s (an
--   error, lock_not_available: the next run tries again).
-- Guarantees: at most one partition per call; returns its name, or null when none is due. Purges running at once
--   each drop a different partition, or none.

CREATE OR REPLACE FUNCTION "drop_partition_past"(p_parent TEXT, p_before TIMESTAMPTZ)
RETURNS TEXT
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  v_partition TEXT;
BEGIN
  IF p_parent NOT IN ('audit_events') THEN
    RAISE EXCEPTION 'drop_partition_past: % does not expire by its partition key', p_parent;
  END IF;
  SELECT b."o_partition" INTO v_partition FROM "partition_bounds"(p_parent) b
  WHERE b."o_upper" <= p_before ORDER BY b."o_upper" LIMIT 1;
  IF v_partition IS NULL THEN RETURN NULL; END IF;
  PERFORM set_config('lock_timeout', '2s', true);
  -- The lock DROP takes on the parent, taken first, then the oldest due partition read again: another process's purge
  -- (every API process runs one) may have dropped the one read above while this one waited for the lock.
  EXECUTE format('LOCK TABLE %I IN ACCESS EXCLUSIVE MODE', p_parent);
  SELECT b."o_partition" INTO v_partition FROM "partition_bounds"(p_parent) b
  WHERE b."o_upper" <= p_before ORDER BY b."o_upper" LIMIT 1;
  IF v_partition IS NULL THEN RETURN NULL; END IF;
  EXECUTE format('DROP TABLE %I', v_partition);
  RETURN v_partition;
END
$$;
