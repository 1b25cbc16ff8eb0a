-- An area search's batch-wide maxResults (issue 35, decision 039): the batch delivers (and charges for) at most
-- max_results leads across its tiles. results_committed counts the leads its children have committed so far,
-- kept by commit_page under the batch row's lock (only for a batch with max_results), so two children committing
-- at once on two workers never pass it; the CHECK holds whatever code runs.
ALTER TABLE "batches" ADD COLUMN "max_results" INTEGER;
ALTER TABLE "batches" ADD COLUMN "results_committed" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "batches" ADD CONSTRAINT "batches_max_results_positive" CHECK ("max_results" IS NULL OR "max_results" >= 1);
ALTER TABLE "batches" ADD CONSTRAINT "batches_within_max_results" CHECK ("max_results" IS NULL OR "results_committed" <= "max_results");
