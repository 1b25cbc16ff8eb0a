-- Lead retention (LEAD_RETENTION_DAYS, docs/data-protection.md): when the sweep deleted a finished job's
-- leads. The job keeps its counts and charges; its leads endpoints answer 410 leads_expired from then on.
ALTER TABLE "jobs" ADD COLUMN "leads_expired_at" TIMESTAMPTZ(3);

-- The sweep walks the finished jobs whose leads are still kept (leads_expired_at IS NULL), oldest first, up to
-- the retention's cut-off, and never the ones it already emptied.
CREATE INDEX "jobs_leads_expired_at_finished_at_idx" ON "jobs" ("leads_expired_at", "finished_at");

-- Erasure by LinkedIn profile (`admin subject:erase --linkedin-url`): the global list of erased subjects holds
-- profiles as `linkedin.com/in/<slug>`; an account's suppression list does not take this kind.
ALTER TYPE "SuppressionKind" ADD VALUE IF NOT EXISTS 'linkedin';
