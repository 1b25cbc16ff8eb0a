-- Keys a consumer manages over the API (docs/decisions/036-keys-ledger-cors-and-served-docs.md): a name, the
-- scopes the key holds and whether it is a test key. Keys issued before (all by the operator) keep every scope.
ALTER TABLE "api_keys"
  ADD COLUMN "name" TEXT,
  ADD COLUMN "scopes" TEXT[] NOT NULL DEFAULT ARRAY['read', 'generate', 'webhooks', 'monitors', 'suppressions', 'keys']::TEXT[],
  ADD COLUMN "mode" TEXT NOT NULL DEFAULT 'live',
  ADD COLUMN "created_by_key_id" TEXT;

ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_mode_check" CHECK ("mode" IN ('live', 'test'));
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_scopes_check"
  CHECK (cardinality("scopes") >= 1 AND "scopes" <@ ARRAY['read', 'generate', 'webhooks', 'monitors', 'suppressions', 'keys']::TEXT[]);
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_name_check" CHECK (char_length("name") <= 100);

-- The key listing pages an account's keys newest first.
CREATE INDEX "api_keys_account_id_created_at_id_idx" ON "api_keys" ("account_id", "created_at", "id");

-- The consumer's ledger pages an account's rows in id order (GET /api/v1/account/ledger); the index replaces the one
-- on account_id alone (every query that used it can use this one), so settling a job writes no more index entries.
CREATE INDEX "credit_ledger_account_id_id_idx" ON "credit_ledger" ("account_id", "id");
DROP INDEX "credit_ledger_account_id_idx";

-- Test mode (decision 036): a test key belongs to its account's test account, a second account made on the first
-- test key's creation, id acc_test_…, that points at the live one. Its jobs, leads, batches, monitors, webhooks,
-- suppressions, ledger and rate limits are its own, so live keys never see them and test keys never see live data;
-- its jobs are served by the sandbox (the worker tells them by the id) and spend its own test credits only.
ALTER TABLE "accounts" ADD COLUMN "live_account_id" TEXT;
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_live_account_id_fkey"
  FOREIGN KEY ("live_account_id") REFERENCES "accounts" ("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE UNIQUE INDEX "accounts_live_account_id_key" ON "accounts" ("live_account_id");
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_test_account_check"
  CHECK (("live_account_id" IS NULL) = ("id" NOT LIKE 'acc\_test\_%'));
