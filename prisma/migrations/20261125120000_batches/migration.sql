-- Batches (docs/decisions/021-batches.md): one request of up to 1,000 generation requests, each an ordinary
-- job (a child) that carries its batch. The batch's counters are kept by its children's settlements
-- (settle_batch_child), so reading a batch never sums its children, and the last settlement settles it.
CREATE TABLE "batches" (
  "id" TEXT NOT NULL,
  "account_id" TEXT NOT NULL,
  "name" TEXT,
  -- running until every child is terminal, then COMPLETE, PARTIAL, EMPTY, FAILED or CANCELLED
  "status" TEXT NOT NULL DEFAULT 'running',
  -- the Idempotency-Key the batch was created with, while it binds (null once an expired key was taken over)
  "idempotency_key" TEXT,
  "fingerprint" TEXT NOT NULL,
  "key_expires_at" TIMESTAMPTZ(3),
  "exclude_delivered" BOOLEAN NOT NULL DEFAULT false,
  "max_credits" INTEGER,
  "webhook_url" TEXT,
  "child_count" INTEGER NOT NULL,
  "open_count" INTEGER NOT NULL,
  "complete_count" INTEGER NOT NULL DEFAULT 0,
  "partial_count" INTEGER NOT NULL DEFAULT 0,
  "empty_count" INTEGER NOT NULL DEFAULT 0,
  "failed_count" INTEGER NOT NULL DEFAULT 0,
  "cancelled_count" INTEGER NOT NULL DEFAULT 0,
  "requested_count" INTEGER NOT NULL,
  "delivered_count" INTEGER NOT NULL DEFAULT 0,
  -- held by the children that started and have not settled (each reserves its worst case as it starts)
  "credits_reserved" INTEGER NOT NULL DEFAULT 0,
  "credits_charged" INTEGER NOT NULL DEFAULT 0,
  "cancelled_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "finished_at" TIMESTAMPTZ(3),
  CONSTRAINT "batches_pkey" PRIMARY KEY ("id")
);
-- maxCredits is held by the database, whatever code runs: what is charged and what is still reserved never pass it.
ALTER TABLE "batches" ADD CONSTRAINT "batches_within_max_credits"
  CHECK ("credits_reserved" >= 0 AND ("max_credits" IS NULL OR "credits_charged" + "credits_reserved" <= "max_credits"));
ALTER TABLE "batches" ADD CONSTRAINT "batches_status_known"
  CHECK ("status" IN ('running', 'COMPLETE', 'PARTIAL', 'EMPTY', 'FAILED', 'CANCELLED'));
CREATE UNIQUE INDEX "batches_account_id_idempotency_key_key" ON "batches"("account_id", "idempotency_key");
CREATE INDEX "batches_account_id_created_at_idx" ON "batches"("account_id", "created_at");
CREATE INDEX "batches_key_expires_at_idx" ON "batches"("key_expires_at");
ALTER TABLE "batches" ADD CONSTRAINT "batches_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A child: its batch, its place in the batch's requests, and the worst case it reserves when it starts.
ALTER TABLE "jobs" ADD COLUMN "batch_id" TEXT;
ALTER TABLE "jobs" ADD COLUMN "batch_index" INTEGER;
ALTER TABLE "jobs" ADD COLUMN "reserve_on_start" INTEGER;
CREATE INDEX "jobs_batch_id_batch_index_idx" ON "jobs"("batch_id", "batch_index");
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every lead key a batch delivered, claimed by the child that delivered it: a lead at most once per batch.
CREATE TABLE "batch_deliveries" (
  "batch_id" TEXT NOT NULL,
  "source" "Source" NOT NULL,
  "dedup_key" TEXT NOT NULL,
  "job_id" TEXT NOT NULL,
  CONSTRAINT "batch_deliveries_pkey" PRIMARY KEY ("batch_id", "source", "dedup_key")
);
ALTER TABLE "batch_deliveries" ADD CONSTRAINT "batch_deliveries_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A batch's terminal event is a delivery of the batch, not of a job.
ALTER TABLE "webhook_deliveries" ADD COLUMN "batch_id" TEXT;
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;
