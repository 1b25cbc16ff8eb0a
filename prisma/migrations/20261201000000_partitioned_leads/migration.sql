--! online
-- Leads become a table partitioned by range of their job's created_at (issue 39, decision 046), so retention drops
-- a week of leads as one file instead of deleting its rows one by one (which frees no disk). Every lead carries its
-- job's created_at (job_created_at), so all of a job's leads live in one partition and the partitions' own unique
-- indexes (job_id, dedup_key) and (job_id, position) hold for the whole table, as before.
--
-- An existing database moves online: the table as it is becomes the partition leads_legacy, holding everything
-- before the cutover (the Monday after the migration, 00:00 UTC), without rewriting or scanning it under a lock
-- that stops the service. The sections below, split by `--! commit`, run each in its own transaction before the
-- migrator's main one (migrator.ts: an `--! online` migration); the main transaction runs the whole file again, in
-- which the first two sections find their work done. Locks, in order:
--   1. ADD COLUMN with a constant default (no rewrite: the value is kept in the catalog) and a CHECK NOT VALID: an
--      ACCESS EXCLUSIVE lock on leads for milliseconds.
--   2. VALIDATE CONSTRAINT: reads every row under SHARE UPDATE EXCLUSIVE, which lets reads and writes go on.
--   3. rename, the partitioned parent, ATTACH: ACCESS EXCLUSIVE on leads_legacy (the rename) and SHARE ROW
--      EXCLUSIVE on jobs (the parent's foreign key), milliseconds: ATTACH skips its scan because the validated
--      CHECK implies the partition's bound, and builds no index because leads_legacy has each the parent needs.
-- Rows that existed before carry job_created_at = -infinity; later leads of a job created before the cutover carry
-- its real created_at, and both land in leads_legacy, whose unique indexes cover them all.

-- 1. the partition key on the existing heap, and the bound it will have as a partition (not yet checked)
DO $$
DECLARE
  v_cutover TIMESTAMPTZ := (date_trunc('week', now() AT TIME ZONE 'UTC') + interval '7 days') AT TIME ZONE 'UTC';
BEGIN
  IF to_regclass('public.leads') IS NULL OR (SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('public.leads')) <> 'r' THEN
    RETURN; -- a database without leads yet (its first migration is pending), or one moved already
  END IF;
  PERFORM set_config('lock_timeout', '5s', true);
  ALTER TABLE "leads" ADD COLUMN IF NOT EXISTS "job_created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT '-infinity';
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'public.leads'::regclass AND conname = 'leads_legacy_bound') THEN
    EXECUTE format('ALTER TABLE "leads" ADD CONSTRAINT "leads_legacy_bound" CHECK ("job_created_at" < %L) NOT VALID', v_cutover);
  END IF;
END
$$;
--! commit

-- 2. the bound checked on every row, while the service reads and writes
DO $$
BEGIN
  IF to_regclass('public.leads') IS NULL OR (SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('public.leads')) <> 'r' THEN
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'public.leads'::regclass AND conname = 'leads_legacy_bound' AND NOT convalidated) THEN
    ALTER TABLE "leads" VALIDATE CONSTRAINT "leads_legacy_bound";
  END IF;
END
$$;
--! commit

-- 3. the partitioned parent, the old heap attached to it as leads_legacy, and the first two weeks' partitions
DO $$
DECLARE
  v_cutover TIMESTAMPTZ;
  v_week TIMESTAMPTZ;
  v_name TEXT;
BEGIN
  IF (SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('public.leads')) = 'p' THEN
    RETURN;
  END IF;
  PERFORM set_config('lock_timeout', '5s', true);
  SELECT substring(pg_get_constraintdef(oid) FROM '''([^'']+)''')::TIMESTAMPTZ INTO v_cutover
  FROM pg_constraint WHERE conrelid = 'public.leads'::regclass AND conname = 'leads_legacy_bound';

  ALTER TABLE "leads" RENAME TO "leads_legacy";
  ALTER INDEX "leads_pkey" RENAME TO "leads_legacy_pkey";
  ALTER INDEX "leads_job_id_dedup_key_key" RENAME TO "leads_legacy_job_id_dedup_key_key";
  ALTER INDEX "leads_job_id_position_key" RENAME TO "leads_legacy_job_id_position_key";
  ALTER INDEX IF EXISTS "leads_contact_keys_v1_idx" RENAME TO "leads_legacy_contact_keys_v1_idx";
  ALTER TABLE "leads_legacy" ALTER COLUMN "job_created_at" DROP DEFAULT;

  CREATE TABLE "leads" (
    "id" BIGINT NOT NULL DEFAULT nextval('leads_id_seq'),
    "job_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "dedup_key" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- the partition key: the created_at of the lead's job (no default: an insert that does not say fails)
    "job_created_at" TIMESTAMPTZ(3) NOT NULL
  ) PARTITION BY RANGE ("job_created_at");
  ALTER SEQUENCE "leads_id_seq" OWNED BY "leads"."id";
  ALTER TABLE "leads" ADD CONSTRAINT "leads_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
  -- The contact keys' index (lead_contact_keys.sql), on the parent before the attach so leads_legacy's is adopted.
  IF to_regprocedure('lead_contact_keys(jsonb)') IS NOT NULL THEN
    CREATE INDEX "leads_contact_keys_v1_idx" ON "leads" USING gin ("lead_contact_keys"("data"));
  END IF;

  EXECUTE format('ALTER TABLE "leads" ATTACH PARTITION "leads_legacy" FOR VALUES FROM (MINVALUE) TO (%L)', v_cutover);
  -- the partition's own bound says it now; the CHECK has served
  ALTER TABLE "leads_legacy" DROP CONSTRAINT "leads_legacy_bound";

  -- raise_erasure_epoch's statement trigger: raise_erasure_epoch.sql, changed with this migration and so applied in
  -- its transaction, puts it on the parent, where deletions are made.
  DROP TRIGGER IF EXISTS "leads_raise_erasure_epoch" ON "leads_legacy";

  -- The weeks from the cutover to two weeks from now (two, unless the first section ran long before this one), so
  -- leads of jobs created after it have a partition before any worker runs the maintenance that creates the next
  -- ones (ensure_lead_partitions.sql, which makes them the same way).
  v_week := v_cutover;
  WHILE v_week < GREATEST(v_cutover + interval '14 days', now() + interval '14 days') LOOP
    v_name := 'leads_' || to_char(v_week AT TIME ZONE 'UTC', 'YYYYMMDD');
    EXECUTE format('CREATE TABLE %I (LIKE "leads" INCLUDING DEFAULTS)', v_name);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY ("id"), ADD CONSTRAINT %I UNIQUE ("job_id", "dedup_key"), ADD CONSTRAINT %I UNIQUE ("job_id", "position")',
      v_name, v_name || '_pkey', v_name || '_job_id_dedup_key_key', v_name || '_job_id_position_key');
    EXECUTE format('ALTER TABLE "leads" ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', v_name, v_week, v_week + interval '7 days');
    v_week := v_week + interval '7 days';
  END LOOP;
END
$$;
