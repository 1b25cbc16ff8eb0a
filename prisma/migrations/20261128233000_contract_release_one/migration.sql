-- Contract (docs/decisions/017-sql-as-code.md, 030-release-one-closed.md): the function forms only release 1's
-- pods called, which no version since has sent (packages/db/test/fixtures/previous-release-statements.sql holds
-- what the version before this one sends, and previous-release.test.ts proves each of its calls still answers).
-- Dropping is not defining: the function files keep the one form of each. start_job's name is reused by the
-- function files (begin_job's body under the TypeScript's name, startJob), with another result, so its old form
-- must go first.
DROP FUNCTION IF EXISTS "settle_job"(TEXT, "JobStatus", TEXT, INTEGER, INTEGER);
DROP FUNCTION IF EXISTS "settle_job"(TEXT, "JobStatus", TEXT, INTEGER, INTEGER, TEXT);
DROP FUNCTION IF EXISTS "create_job"(TEXT, TEXT, TEXT, TEXT, INTEGER, INTEGER, TEXT, "Source", JSONB, INTEGER, TEXT, TEXT);
DROP FUNCTION IF EXISTS "start_job"(TEXT, TEXT);
DROP FUNCTION IF EXISTS "authenticate"(TEXT);
