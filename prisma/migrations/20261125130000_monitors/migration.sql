-- Monitors (docs/decisions/022-monitors.md): a generation request on a schedule. PostgreSQL holds the
-- schedule and the next due time; the queue is only the alarm clock. Deleting a monitor marks it
-- (deleted_at) so its runs stay readable and keep their monitor_id.
CREATE TABLE "monitors" (
  "id" TEXT NOT NULL,
  "account_id" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "request" JSONB NOT NULL,
  "schedule" JSONB NOT NULL,
  "webhook_url" TEXT,
  "max_credits_per_run" INTEGER,
  "enabled" BOOLEAN NOT NULL DEFAULT true,
  "paused_reason" TEXT,
  "next_run_at" TIMESTAMPTZ(3),
  "failures_since" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "deleted_at" TIMESTAMPTZ(3),
  CONSTRAINT "monitors_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "monitors_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "monitors_account_id_created_at_idx" ON "monitors"("account_id", "created_at");
CREATE INDEX "monitors_next_run_at_idx" ON "monitors"("next_run_at");

-- One row per tick (scheduled_for: the due time it served) and per run asked for (scheduled_for null).
-- The unique (monitor_id, scheduled_for) is the tick's key: a tick never makes two rows, so never two runs.
CREATE TABLE "monitor_runs" (
  "id" TEXT NOT NULL,
  "monitor_id" TEXT NOT NULL,
  "kind" TEXT NOT NULL,
  "scheduled_for" TIMESTAMPTZ(3),
  "job_id" TEXT,
  "skip_reason" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "monitor_runs_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "monitor_runs_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "monitor_runs_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE SET NULL ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "monitor_runs_monitor_id_scheduled_for_key" ON "monitor_runs"("monitor_id", "scheduled_for");
CREATE INDEX "monitor_runs_monitor_id_created_at_idx" ON "monitor_runs"("monitor_id", "created_at");
CREATE UNIQUE INDEX "monitor_runs_job_id_key" ON "monitor_runs"("job_id");

-- A run is an ordinary job tagged with its monitor (its webhook event carries monitorId).
ALTER TABLE "jobs" ADD COLUMN "monitor_id" TEXT;
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE SET NULL ON UPDATE CASCADE;
CREATE INDEX "jobs_monitor_id_created_at_idx" ON "jobs"("monitor_id", "created_at");

-- A monitor.paused event has a monitor and no job; its data (the reason) is kept as it was at the pause.
ALTER TABLE "webhook_deliveries" ADD COLUMN "monitor_id" TEXT;
ALTER TABLE "webhook_deliveries" ADD COLUMN "event_data" JSONB;
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
