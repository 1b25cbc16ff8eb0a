-- audit_events_append_only: the trigger that refuses every UPDATE of an audit event, and every DELETE
-- except the retention purge's (which says so in its transaction), so the trail cannot be rewritten.
-- Called by: the trigger audit_events_no_update_or_delete (defined below, with its function); the purge is
--   packages/db/src/audit-events.ts (purgeAuditEvents).
--   audit_events is partitioned by week (decision 053): the trigger is on the parent, and PostgreSQL gives it to every
--   partition, those ensure_weekly_partitions attaches later included. Dropping a partition past AUDIT_RETENTION_DAYS
--   (drop_partition_past, as the owner) fires no row trigger: it is the retention the purge applies row by row.
-- Locks: nothing of its own.
-- Guarantees: an audit event, once written, is never changed; it is removed only by the purge of events
--   older than AUDIT_RETENTION_DAYS (`SET LOCAL leadgen.audit_purge = 'on'` in the purge's transaction).

CREATE OR REPLACE FUNCTION "audit_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('leadgen.audit_purge', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_events is append-only';
END;
$$;

CREATE OR REPLACE TRIGGER "audit_events_no_update_or_delete"
  BEFORE UPDATE OR DELETE ON "audit_events"
  FOR EACH ROW EXECUTE FUNCTION "audit_events_append_only"();
