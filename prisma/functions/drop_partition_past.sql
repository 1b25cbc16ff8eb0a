-- drop_partition_past: retention by whole partitions for a table partitioned by week whose rows expire by their own
-- time, the partition key (audit_events: created_at, AUDIT_RETENTION_DAYS; webhook_deliveries: created_at,
-- WEBHOOK_DELIVERY_RETENTION_DAYS; decision 053). Drops the oldest partition all of whose range is before p_before
-- (its upper bound is at or before it): every row in it is past the retention, the disk is freed at once, and no row
-- is deleted one by one. The partition at the window's edge is left to the caller's batches, which delete rows.
-- (Leads expire by their job's end, not by their key: drop_expired_lead_partition chooses their partition.)
-- webhook_deliveries: a week that holds a pending delivery is skipped (its retry round lasts about 28 hours, and a
-- manual retry starts another: it is kept until it ends, and the caller's batches delete the others of its week);
-- the week's attempts (webhook_attempts' partition of the same bounds, whose foreign key points at it and at no
-- other) are dropped with it, first.
-- Depends on: partition_bounds
-- Called by: packages/db/src/audit-events.ts (purgeAuditEvents) and packages/db/src/webhook-retention.ts
--   (purgeWebhookDeliveries), before their batches. SECURITY DEFINER: only the owner may drop a table (decision 035),
--   and the runtime role may not delete an audit event but in the purge (audit_events_append_only); this drops only
--   partitions of the tables it names. It gives the runtime role no more than the purges' own deletes do (p_before
--   is the caller's: tests pass a later time).
-- Locks: ACCESS EXCLUSIVE on the parent (webhook_deliveries, then webhook_attempts: the order in which an attempt's
--   statement writes them) and the partition for the DROP, milliseconds, with a lock_timeout of 2 s (webhook
--   deliveries: 500 ms) (an error, lock_not_available: the next run tries again). Under it, no delivery can be made pending meanwhile.
-- Guarantees: at most one partition (of webhook_deliveries: and its attempts') per call; returns its name, or null
--   when none is due. Purges running at once each drop a different partition, or none. Never a week of deliveries
--   with a pending one.

CREATE OR REPLACE FUNCTION "drop_partition_past"(p_parent TEXT, p_before TIMESTAMPTZ)
RETURNS TEXT
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  v_partition TEXT;
  v_upper TIMESTAMPTZ;
  v_attempts TEXT;
  v_candidate RECORD;
  v_pending BOOLEAN;
BEGIN
  IF p_parent NOT IN ('audit_events', 'webhook_deliveries') THEN
    RAISE EXCEPTION 'drop_partition_past: % does not expire by its partition key', p_parent;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM "partition_bounds"(p_parent) b WHERE b."o_upper" <= p_before) THEN RETURN NULL; END IF;
  -- webhook_deliveries: under deadlock_timeout (1 s), since an attempt's insert takes webhook_attempts and then, for
  -- its foreign key, the delivery's week: this gives way first rather than end in a deadlock that might cancel it.
  PERFORM set_config('lock_timeout', CASE WHEN p_parent = 'webhook_deliveries' THEN '500ms' ELSE '2s' END, true);
  -- The lock DROP takes on the parent, taken first, then the oldest due partition read again: another process's purge
  -- may have dropped the one read above while this one waited for the lock.
  EXECUTE format('LOCK TABLE %I IN ACCESS EXCLUSIVE MODE', p_parent);
  IF p_parent = 'webhook_deliveries' THEN
    LOCK TABLE "webhook_attempts" IN ACCESS EXCLUSIVE MODE;
  END IF;
  FOR v_candidate IN SELECT b."o_partition", b."o_upper" FROM "partition_bounds"(p_parent) b WHERE b."o_upper" <= p_before ORDER BY b."o_upper" LOOP
    IF p_parent = 'webhook_deliveries' THEN
      -- (status, next_attempt_at): a probe of the partition's index
      EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE "status" = ''pending'')', v_candidate."o_partition") INTO v_pending;
      CONTINUE WHEN v_pending;
    END IF;
    v_partition := v_candidate."o_partition";
    v_upper := v_candidate."o_upper";
    EXIT;
  END LOOP;
  IF v_partition IS NULL THEN RETURN NULL; END IF;
  IF p_parent = 'webhook_deliveries' THEN
    SELECT b."o_partition" INTO v_attempts FROM "partition_bounds"('webhook_attempts') b WHERE b."o_upper" = v_upper;
    IF v_attempts IS NULL THEN
      RAISE EXCEPTION 'drop_partition_past: webhook_attempts has no partition ending at %, as % does', v_upper, v_partition;
    END IF;
    EXECUTE format('DROP TABLE %I', v_attempts);
  END IF;
  EXECUTE format('DROP TABLE %I', v_partition);
  RETURN v_partition;
END
$$;
