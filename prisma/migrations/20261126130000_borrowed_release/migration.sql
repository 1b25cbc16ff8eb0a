-- Borrowed release (docs/decisions/020-fair-queues.md): a worker slot that would otherwise stay idle takes the
-- source's oldest held single job, whatever its account. This finds them across accounts, oldest first.
CREATE INDEX "jobs_source_held_single_idx" ON "jobs"("source", "created_at", "id")
  WHERE "status" = 'queued' AND "released_at" IS NULL AND "batch_id" IS NULL;
