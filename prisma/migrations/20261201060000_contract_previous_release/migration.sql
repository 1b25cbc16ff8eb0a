-- Contract (docs/decisions/017-sql-as-code.md, 030-release-one-closed.md): the forms kept one release for the pods
-- of the release before d3a47ec, which d3a47ec (the previous release, packages/db/test/fixtures/
-- previous-release-statements.sql) no longer calls: begin_job (start_job's old name), authenticate_key (replaced
-- by authenticate_api_key), start_job's 2-argument form and commit_page's 3-argument form. Not a breaking change:
-- breaking-changes.test.ts finds every function the previous release calls with its signature.
DROP FUNCTION IF EXISTS "begin_job"(TEXT, TEXT);
DROP FUNCTION IF EXISTS "authenticate_key"(TEXT);
DROP FUNCTION IF EXISTS "start_job"(TEXT, TEXT);
DROP FUNCTION IF EXISTS "commit_page"(TEXT, JSONB, TEXT);
