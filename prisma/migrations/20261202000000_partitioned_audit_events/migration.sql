--! online
-- audit_events becomes a table partitioned by week of its created_at (issue 39, decision 053), as leads did
-- (decision 046), so AUDIT_RETENTION_DAYS drops a week of events as one file instead of deleting its rows one by one
-- (which frees no disk). The partition key is the event's own created_at: an event never changes (append-only), so
-- it never moves.
--
-- An existing database moves online: the table as it is becomes the partition audit_events_legacy, holding
-- everything before the cutover (Monday 00:00 UTC, one to two weeks after the migration: rows written between the
-- first section and the last must meet the bound, and their created_at is the time they are written), without
-- rewriting or scanning it under a lock that stops the service. The sections below, split by `--! commit`, run each
-- in its own transaction before the migrator's main one (migrator.ts: an `--! online` migration); the main
-- transaction runs the whole file again, in which the first two sections find their work done. Locks, in order:
--   1. a CHECK NOT VALID: ACCESS EXCLUSIVE on audit_events for milliseconds (no column to add: created_at is there).
--   2. VALIDATE CONSTRAINT: reads every row under SHARE UPDATE EXCLUSIVE, which lets reads and writes go on.
--   3. rename, the partitioned parent, ATTACH: ACCESS EXCLUSIVE on audit_events_legacy (the rename), milliseconds:
--      ATTACH skips its scan because the validated CHECK implies the partition's bound, and builds no index because
--      audit_events_legacy has each the parent has. No foreign key points at audit_events nor from it.
-- The append-only trigger moves to the parent, which gives it to every partition: audit_events_append_only.sql,
-- changed with this migration and so applied in its transaction (a migration defines no trigger, decision 017), puts
-- it there; the trail is never without it in a committed state.

-- 1. the bound the heap will have as a partition (not yet checked)
DO $$
DECLARE
  v_cutover TIMESTAMPTZ := (date_trunc('week', now() AT TIME ZONE 'UTC') + interval '14 days') AT TIME ZONE 'UTC';
BEGIN
  IF to_regclass('public.audit_events') IS NULL OR (SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('public.audit_events')) <> 'r' THEN
    RETURN; -- a database without audit_events yet (its first migration is pending), or one moved already
  END IF;
  PERFORM set_config('lock_timeout', '5s', true);
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'public.audit_events'::regclass AND conname = 'audit_events_legacy_bound') THEN
    EXECUTE format('ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_legacy_bound" CHECK ("created_at" < %L) NOT VALID', v_cutover);
  END IF;
END
$$;
--! commit

-- 2. the bound checked on every row, while the service reads and writes
DO $$
BEGIN
  IF to_regclass('public.audit_events') IS NULL OR (SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('public.audit_events')) <> 'r' THEN
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'public.audit_events'::regclass AND conname = 'audit_events_legacy_bound' AND NOT convalidated) THEN
    ALTER TABLE "audit_events" VALIDATE CONSTRAINT "audit_events_legacy_bound";
  END IF;
END
$$;
--! commit

-- 3. the partitioned parent, the old heap attached to it as audit_events_legacy, and the first two weeks' partitions
DO $$
DECLARE
  v_cutover TIMESTAMPTZ;
  v_week TIMESTAMPTZ;
  v_name TEXT;
BEGIN
  IF (SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('public.audit_events')) = 'p' THEN
    RETURN;
  END IF;
  PERFORM set_config('lock_timeout', '5s', true);
  SELECT substring(pg_get_constraintdef(oid) FROM '''([^'']+)''')::TIMESTAMPTZ INTO v_cutover
  FROM pg_constraint WHERE conrelid = 'public.audit_events'::regclass AND conname = 'audit_events_legacy_bound';

  ALTER TABLE "audit_events" RENAME TO "audit_events_legacy";
  ALTER INDEX "audit_events_pkey" RENAME TO "audit_events_legacy_pkey";
  ALTER INDEX "audit_events_account_id_created_at_idx" RENAME TO "audit_events_legacy_account_id_created_at_idx";
  ALTER INDEX "audit_events_created_at_idx" RENAME TO "audit_events_legacy_created_at_idx";
  -- the parent's trigger (audit_events_append_only.sql, in this transaction) is given to every partition, this one too
  DROP TRIGGER IF EXISTS "audit_events_no_update_or_delete" ON "audit_events_legacy";

  CREATE TABLE "audit_events" (
    "id" TEXT NOT NULL,
    "account_id" TEXT,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "request_id" TEXT,
    "summary" JSONB NOT NULL,
    -- the partition key: the time the event was written
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
  ) PARTITION BY RANGE ("created_at");
  -- The listing's and the purge's indexes, on the parent before the attach so audit_events_legacy's are adopted. The
  -- key (id) is each partition's own: one on the parent would have to hold created_at, an index built on the whole
  -- heap to enforce nothing the partitions and the ids (random, newId.auditEvent) do not.
  CREATE INDEX "audit_events_account_id_created_at_idx" ON "audit_events"("account_id", "created_at");
  CREATE INDEX "audit_events_created_at_idx" ON "audit_events"("created_at");

  EXECUTE format('ALTER TABLE "audit_events" ATTACH PARTITION "audit_events_legacy" FOR VALUES FROM (MINVALUE) TO (%L)', v_cutover);
  -- the partition's own bound says it now; the CHECK has served
  ALTER TABLE "audit_events_legacy" DROP CONSTRAINT "audit_events_legacy_bound";

  -- The weeks from the cutover to two weeks from now (two, unless the first section ran long before this one), so
  -- events written after it have a partition before any worker runs the maintenance that creates the next ones
  -- (ensure_weekly_partitions.sql, which makes them the same way).
  v_week := v_cutover;
  WHILE v_week < GREATEST(v_cutover + interval '14 days', now() + interval '14 days') LOOP
    v_name := 'audit_events_' || to_char(v_week AT TIME ZONE 'UTC', 'YYYYMMDD');
    EXECUTE format('CREATE TABLE %I (LIKE "audit_events" INCLUDING DEFAULTS)', v_name);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY ("id")', v_name, v_name || '_pkey');
    EXECUTE format('ALTER TABLE "audit_events" ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', v_name, v_week, v_week + interval '7 days');
    v_week := v_week + interval '7 days';
  END LOOP;
END
$$;
