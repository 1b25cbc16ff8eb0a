-- How many of a job's delivered leads a subject erasure deleted since: delivered_count stays what was delivered
-- (and billed), so the leads kept are delivered_count - leads_erased (none once leads_expired_at is set).
ALTER TABLE "jobs" ADD COLUMN "leads_erased" INTEGER NOT NULL DEFAULT 0;
