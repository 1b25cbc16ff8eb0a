--! online
-- webhook_deliveries and webhook_attempts become tables partitioned by the week of the delivery's created_at (issue
-- 39, decision 053), so WEBHOOK_DELIVERY_RETENTION_DAYS drops a week of deliveries and their attempts as two files
-- (drop_partition_past.sql) instead of deleting them row by row. A delivery never changes its created_at, and each
-- attempt carries it (delivery_created_at), so a delivery and its attempts live in the same week.
--
-- An existing database moves online, as audit_events did (20261202000000): each table as it is becomes the partition
-- <table>_legacy, holding everything before the cutover (Monday 00:00 UTC, one to two weeks after the migration: a
-- delivery's created_at is the time it is written, and those written between the first section and the last must
-- meet the bound), without rewriting it or scanning it under a lock that stops the service. Sections, in order:
--   1. (a transaction) webhook_attempts.delivery_created_at, with the constant default -infinity (kept in the
--      catalog, no rewrite: what an attempt the release before writes gets, during the rolling deploy and this move),
--      and both tables' bounds as CHECK NOT VALID: ACCESS EXCLUSIVE on each for milliseconds.
--   2. (no transaction) the attempts' delivery_created_at backfilled, 5,000 attempts a transaction, in order of id.
--   3. (a transaction) both CHECKs validated: SHARE UPDATE EXCLUSIVE, reads and writes go on.
--   4. (the main transaction) renames, the partitioned parents, ATTACH of each legacy table without a scan (the
--      validated CHECK implies its bound) and with no index built (each has those its parent has), the next two weeks'
--      partitions: ACCESS EXCLUSIVE on the legacy tables and SHARE ROW EXCLUSIVE on the tables a foreign key points
--      at (accounts, webhook_endpoints, jobs, batches, monitors), milliseconds.
-- Keys: a delivery's id is each partition's primary key (it is random, and a delivery is found by its id alone: the
-- `webhook-id` its receivers deduplicate on), as leads' and audit events' keys are; an attempt's too, and
-- (delivery_id, attempt). Each week's attempts reference that week's deliveries: (delivery_id) ->
-- webhook_deliveries_YYYYMMDD(id), ON DELETE CASCADE, a foreign key of the partition (ensure_weekly_partitions.sql
-- makes the next weeks' so), as the legacy attempts keep theirs to the legacy deliveries (it follows the renamed
-- table). Not one to the parent's (id, created_at), as decision 053 first had it: PostgreSQL 15 cannot add that
-- NOT VALID to a partitioned table, and a week referenced through the parent cannot be dropped, only detached,
-- which reads every week's attempts to check that none refers to it; the parent then needs no (id, created_at) key,
-- an index built on the whole heap for nothing.

-- The locks a section needs, taken first, in the order the service takes them (a delivery, then its attempts; a job,
-- an endpoint or an account and then a delivery is the other order, so no order suits every statement), each waited
-- for at most 200 ms, under deadlock_timeout (1 s): rather than a deadlock in which PostgreSQL might cancel the
-- service's statement, this gives way, lets go of all it took (a subtransaction's locks go with it) and tries again,
-- up to 50 times. `with_referenced`: also the tables the parent's foreign keys point at (SHARE ROW EXCLUSIVE).
CREATE OR REPLACE FUNCTION pg_temp.lock_webhook_tables(with_referenced BOOLEAN) RETURNS void LANGUAGE plpgsql AS $f$
DECLARE
  v_tries INTEGER := 0;
BEGIN
  PERFORM set_config('lock_timeout', '200ms', true);
  LOOP
    BEGIN
      LOCK TABLE "webhook_deliveries", "webhook_attempts" IN ACCESS EXCLUSIVE MODE;
      IF with_referenced THEN
        LOCK TABLE "accounts", "webhook_endpoints", "jobs", "batches", "monitors" IN SHARE ROW EXCLUSIVE MODE;
      END IF;
      PERFORM set_config('lock_timeout', '5s', true);
      RETURN;
    EXCEPTION WHEN lock_not_available THEN
      v_tries := v_tries + 1;
      IF v_tries >= 50 THEN RAISE; END IF;
      PERFORM pg_sleep(0.05 + random() * 0.1);
    END;
  END LOOP;
END
$f$;

-- 1. the attempts' partition key, and the bounds the heaps will have as partitions (not yet checked)
DO $$
DECLARE
  v_cutover TIMESTAMPTZ := (date_trunc('week', now() AT TIME ZONE 'UTC') + interval '14 days') AT TIME ZONE 'UTC';
BEGIN
  IF to_regclass('public.webhook_deliveries') IS NULL OR (SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('public.webhook_deliveries')) <> 'r' THEN
    RETURN; -- a database without the webhook tables yet (their first migration is pending), or one moved already
  END IF;
  IF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'public.webhook_attempts'::regclass AND conname = 'webhook_attempts_legacy_bound') THEN
    RETURN; -- done (the main transaction runs this again: it must take no lock then)
  END IF;
  PERFORM pg_temp.lock_webhook_tables(false);
  ALTER TABLE "webhook_attempts" ADD COLUMN IF NOT EXISTS "delivery_created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT '-infinity';
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'public.webhook_deliveries'::regclass AND conname = 'webhook_deliveries_legacy_bound') THEN
    EXECUTE format('ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_legacy_bound" CHECK ("created_at" < %L) NOT VALID', v_cutover);
    EXECUTE format('ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_legacy_bound" CHECK ("delivery_created_at" < %L) NOT VALID', v_cutover);
  END IF;
END
$$;
--! commit

--! no-transaction
-- 2. every attempt's delivery_created_at, in batches of 5,000 attempts (each committed: no lock held long, nothing
-- written by the service waits more than a batch); those the release before writes meanwhile keep -infinity (they
-- are in webhook_attempts_legacy either way, and the listing reads both: webhook-delivery-listing.ts).
DO $$
DECLARE
  v_from BIGINT := 0;
  v_to BIGINT;
  v_last BIGINT;
BEGIN
  IF (SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('public.webhook_attempts')) <> 'r' THEN
    RETURN;
  END IF;
  SELECT max("id") INTO v_last FROM "webhook_attempts";
  WHILE v_from < COALESCE(v_last, 0) LOOP
    v_to := v_from + 5000;
    UPDATE "webhook_attempts" a SET "delivery_created_at" = d."created_at"
    FROM "webhook_deliveries" d
    WHERE a."id" > v_from AND a."id" <= v_to AND a."delivery_created_at" = '-infinity' AND d."id" = a."delivery_id";
    COMMIT;
    v_from := v_to;
  END LOOP;
END
$$;
--! commit

-- 3. the bounds checked on every row, while the service reads and writes
DO $$
BEGIN
  IF to_regclass('public.webhook_deliveries') IS NULL OR (SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('public.webhook_deliveries')) <> 'r' THEN
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'public.webhook_deliveries'::regclass AND conname = 'webhook_deliveries_legacy_bound' AND NOT convalidated) THEN
    ALTER TABLE "webhook_deliveries" VALIDATE CONSTRAINT "webhook_deliveries_legacy_bound";
  END IF;
  IF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'public.webhook_attempts'::regclass AND conname = 'webhook_attempts_legacy_bound' AND NOT convalidated) THEN
    ALTER TABLE "webhook_attempts" VALIDATE CONSTRAINT "webhook_attempts_legacy_bound";
  END IF;
END
$$;
--! commit

-- (pg_temp.lock_webhook_tables: defined at the top of the file, which the main transaction runs too, on the
-- migrator's one session)

-- 4. the partitioned parents, the old heaps attached to them as <table>_legacy, and the first two weeks' partitions
DO $$
DECLARE
  v_cutover TIMESTAMPTZ;
  v_week TIMESTAMPTZ;
  v_suffix TEXT;
BEGIN
  IF (SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('public.webhook_deliveries')) = 'p' THEN
    RETURN;
  END IF;
  PERFORM pg_temp.lock_webhook_tables(true);
  SELECT substring(pg_get_constraintdef(oid) FROM '''([^'']+)''')::TIMESTAMPTZ INTO v_cutover
  FROM pg_constraint WHERE conrelid = 'public.webhook_deliveries'::regclass AND conname = 'webhook_deliveries_legacy_bound';
  -- The deliveries.
  ALTER TABLE "webhook_deliveries" RENAME TO "webhook_deliveries_legacy";
  ALTER INDEX "webhook_deliveries_pkey" RENAME TO "webhook_deliveries_legacy_pkey";
  ALTER INDEX "webhook_deliveries_account_id_created_at_idx" RENAME TO "webhook_deliveries_legacy_account_id_created_at_idx";
  ALTER INDEX "webhook_deliveries_batch_id_idx" RENAME TO "webhook_deliveries_legacy_batch_id_idx";
  ALTER INDEX "webhook_deliveries_endpoint_id_created_at_idx" RENAME TO "webhook_deliveries_legacy_endpoint_id_created_at_idx";
  ALTER INDEX "webhook_deliveries_job_id_idx" RENAME TO "webhook_deliveries_legacy_job_id_idx";
  ALTER INDEX "webhook_deliveries_monitor_id_idx" RENAME TO "webhook_deliveries_legacy_monitor_id_idx";
  ALTER INDEX "webhook_deliveries_status_next_attempt_at_idx" RENAME TO "webhook_deliveries_legacy_status_next_attempt_at_idx";

  CREATE TABLE "webhook_deliveries" (
    "id" TEXT NOT NULL DEFAULT ('msg_' || replace(gen_random_uuid()::text, '-', '')),
    "account_id" TEXT NOT NULL,
    "endpoint_id" TEXT,
    "url" TEXT,
    "job_id" TEXT,
    "event_type" TEXT NOT NULL,
    "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "round_attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(3),
    -- the partition key: the time the delivery was written
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "batch_id" TEXT,
    "monitor_id" TEXT,
    "event_data" JSONB,
    CONSTRAINT "webhook_deliveries_target" CHECK (("endpoint_id" IS NULL) <> ("url" IS NULL))
  ) PARTITION BY RANGE ("created_at");
  -- Its indexes and foreign keys, before the attach so the legacy table's are adopted (no index built, no row read).
  CREATE INDEX "webhook_deliveries_account_id_created_at_idx" ON "webhook_deliveries"("account_id", "created_at");
  CREATE INDEX "webhook_deliveries_batch_id_idx" ON "webhook_deliveries"("batch_id");
  CREATE INDEX "webhook_deliveries_endpoint_id_created_at_idx" ON "webhook_deliveries"("endpoint_id", "created_at");
  CREATE INDEX "webhook_deliveries_job_id_idx" ON "webhook_deliveries"("job_id");
  CREATE INDEX "webhook_deliveries_monitor_id_idx" ON "webhook_deliveries"("monitor_id");
  CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");
  ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
  ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;
  ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;
  ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
  ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
  EXECUTE format('ALTER TABLE "webhook_deliveries" ATTACH PARTITION "webhook_deliveries_legacy" FOR VALUES FROM (MINVALUE) TO (%L)', v_cutover);
  ALTER TABLE "webhook_deliveries_legacy" DROP CONSTRAINT "webhook_deliveries_legacy_bound";

  -- The attempts. Their legacy table keeps its foreign key, delivery_id -> webhook_deliveries_legacy(id) (it follows
  -- the renamed table), and its id sequence becomes the parent's.
  ALTER TABLE "webhook_attempts" RENAME TO "webhook_attempts_legacy";
  ALTER INDEX "webhook_attempts_pkey" RENAME TO "webhook_attempts_legacy_pkey";
  ALTER INDEX "webhook_attempts_delivery_id_attempt_key" RENAME TO "webhook_attempts_legacy_delivery_id_attempt_key";
  CREATE TABLE "webhook_attempts" (
    "id" BIGINT NOT NULL DEFAULT nextval('webhook_attempts_id_seq'),
    "delivery_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "response_status" INTEGER,
    "latency_ms" INTEGER NOT NULL,
    "response_excerpt" TEXT,
    "error" TEXT,
    "succeeded" BOOLEAN NOT NULL,
    -- the partition key: the created_at of the attempt's delivery (-infinity: one the release before wrote, in the
    -- legacy table)
    "delivery_created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT '-infinity'
  ) PARTITION BY RANGE ("delivery_created_at");
  ALTER SEQUENCE "webhook_attempts_id_seq" OWNED BY "webhook_attempts"."id";
  ALTER TABLE "webhook_attempts_legacy" ALTER COLUMN "id" DROP DEFAULT;
  EXECUTE format('ALTER TABLE "webhook_attempts" ATTACH PARTITION "webhook_attempts_legacy" FOR VALUES FROM (MINVALUE) TO (%L)', v_cutover);
  ALTER TABLE "webhook_attempts_legacy" DROP CONSTRAINT "webhook_attempts_legacy_bound";

  -- The weeks from the cutover to two weeks from now, made as ensure_weekly_partitions.sql makes the next ones (it
  -- copies the newest week's keys and foreign key).
  v_week := v_cutover;
  WHILE v_week < GREATEST(v_cutover + interval '14 days', now() + interval '14 days') LOOP
    v_suffix := '_' || to_char(v_week AT TIME ZONE 'UTC', 'YYYYMMDD');
    EXECUTE format('CREATE TABLE %I (LIKE "webhook_deliveries" INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', 'webhook_deliveries' || v_suffix);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY ("id")', 'webhook_deliveries' || v_suffix, 'webhook_deliveries' || v_suffix || '_pkey');
    EXECUTE format('ALTER TABLE "webhook_deliveries" ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', 'webhook_deliveries' || v_suffix, v_week, v_week + interval '7 days');
    EXECUTE format('CREATE TABLE %I (LIKE "webhook_attempts" INCLUDING DEFAULTS)', 'webhook_attempts' || v_suffix);
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY ("id")', 'webhook_attempts' || v_suffix, 'webhook_attempts' || v_suffix || '_pkey');
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I UNIQUE ("delivery_id", "attempt")', 'webhook_attempts' || v_suffix, 'webhook_attempts' || v_suffix || '_delivery_id_attempt_key');
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I FOREIGN KEY ("delivery_id") REFERENCES %I("id") ON DELETE CASCADE ON UPDATE CASCADE',
      'webhook_attempts' || v_suffix, 'webhook_attempts' || v_suffix || '_delivery_id_fkey', 'webhook_deliveries' || v_suffix);
    EXECUTE format('ALTER TABLE "webhook_attempts" ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', 'webhook_attempts' || v_suffix, v_week, v_week + interval '7 days');
    v_week := v_week + interval '7 days';
  END LOOP;
END
$$;
