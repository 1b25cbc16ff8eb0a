-- Fair release (docs/decisions/020-fair-queues.md): a job is in its source's queue only once released.
-- An account has at most QUEUE_OPEN_JOBS_PER_ACCOUNT open released jobs per source; the rest are held in
-- PostgreSQL (queued, released_at NULL, no queue entry) and released oldest first as slots free.
-- The default marks every job already open (it is in its queue) and every job the previous release's
-- create_job makes (it enqueues at once) as released; this release's create_job writes NULL and releases.
-- now() is stable: PostgreSQL 11+ stores it once as the column's missing value, the table is not rewritten.
ALTER TABLE "jobs" ADD COLUMN "released_at" TIMESTAMPTZ(3) DEFAULT now();

-- The cap's count: an account's open released jobs of a source.
CREATE INDEX "jobs_account_id_source_open_released_idx" ON "jobs"("account_id", "source")
  WHERE "status" IN ('queued', 'running') AND "released_at" IS NOT NULL;

-- The held jobs of an account and source, oldest first.
CREATE INDEX "jobs_account_id_source_held_idx" ON "jobs"("account_id", "source", "created_at", "id")
  WHERE "status" = 'queued' AND "released_at" IS NULL;
