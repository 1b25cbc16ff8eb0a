-- Batch monitors (docs/decisions/022-monitors.md): a monitor runs either one generation request (request)
-- or a batch of them (batch: { requests }), never both. Each run of a batch monitor is a batch created by
-- create_batch, tagged with its monitor; the run's row names it, as it names a job run's job.
ALTER TABLE "monitors" ALTER COLUMN "request" DROP NOT NULL;
ALTER TABLE "monitors" ADD COLUMN "batch" JSONB;
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_request_or_batch" CHECK (("request" IS NULL) <> ("batch" IS NULL));

ALTER TABLE "monitor_runs" ADD COLUMN "batch_id" TEXT;
ALTER TABLE "monitor_runs" ADD CONSTRAINT "monitor_runs_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "batches"("id") ON DELETE SET NULL ON UPDATE CASCADE;
CREATE UNIQUE INDEX "monitor_runs_batch_id_key" ON "monitor_runs"("batch_id");

-- A batch a monitor's run created (its terminal event carries monitorId); a batch asked for directly has none.
ALTER TABLE "batches" ADD COLUMN "monitor_id" TEXT;
ALTER TABLE "batches" ADD CONSTRAINT "batches_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE SET NULL ON UPDATE CASCADE;
CREATE INDEX "batches_monitor_id_created_at_idx" ON "batches"("monitor_id", "created_at");
