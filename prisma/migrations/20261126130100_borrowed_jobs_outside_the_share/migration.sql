-- Borrowed slots (docs/decisions/020-fair-queues.md): a job a worker's idle slot borrowed (borrow_held_jobs) runs
-- beyond its account's share, so it does not count towards QUEUE_OPEN_JOBS_PER_ACCOUNT: the account's own
-- releases go on filling its share at once while borrowed jobs use what nobody else needs.
ALTER TABLE "jobs" ADD COLUMN "borrowed" BOOLEAN NOT NULL DEFAULT false;

-- The share's count: an account's open released jobs of a source that were not borrowed.
CREATE INDEX "jobs_account_id_source_open_fair_idx" ON "jobs"("account_id", "source")
  WHERE "status" IN ('queued', 'running') AND "released_at" IS NOT NULL AND NOT "borrowed";
DROP INDEX "jobs_account_id_source_open_released_idx";
