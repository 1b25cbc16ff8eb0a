-- One bound, one name (docs/ARCHITECTURE.md#glossary): the parameter of an account's share is p_share in
-- create_job, settle_job, release_held_jobs and share_open_jobs (it was p_open_cap and p_cap), and the reservation
-- a settlement returns is p_unreserve in settle_credits (it was p_release). CREATE OR REPLACE cannot rename a
-- parameter, so the old forms are dropped here and the function files, changed in this release, create the new
-- ones in the same transaction (the migrator runs migrations and function files as one). Argument types and
-- results are unchanged: the previous release calls every one of them by position, so it runs beside this one.
DROP FUNCTION IF EXISTS "create_job"(TEXT, TEXT, TEXT, TEXT, INTEGER, INTEGER, TEXT, "Source", JSONB, INTEGER, TEXT, TEXT, INTEGER);
DROP FUNCTION IF EXISTS "settle_job"(TEXT, "JobStatus", TEXT, INTEGER, INTEGER, TEXT, INTEGER);
DROP FUNCTION IF EXISTS "release_held_jobs"(TEXT, "Source", INTEGER);
DROP FUNCTION IF EXISTS "share_open_jobs"(TEXT, "Source", INTEGER);
DROP FUNCTION IF EXISTS "settle_credits"(TEXT, TEXT, BIGINT, BIGINT);
