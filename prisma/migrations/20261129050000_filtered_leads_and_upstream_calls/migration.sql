-- Decision 038: the leads a job's filters left out (neither delivered nor billed), and the paid upstream calls its
-- runs made, by upstream ({"google_places": 3, "reacher": 12}), both on the job body. Defaults keep every existing
-- row valid and the previous release's statements working (they do not name the columns).
ALTER TABLE "jobs" ADD COLUMN "skipped_filtered" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "jobs" ADD COLUMN "upstream_calls" JSONB NOT NULL DEFAULT '{}';
