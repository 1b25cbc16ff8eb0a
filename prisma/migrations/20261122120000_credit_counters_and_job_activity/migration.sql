-- Credits in O(1): the account carries its balance (granted - charged) and what open jobs hold
-- (reserved), kept in the same statement as the ledger rows that justify them. The ledger stays
-- the proof; `npm run admin -- credits:verify` and the tests check that both agree.
ALTER TABLE "accounts" ADD COLUMN "balance" BIGINT NOT NULL DEFAULT 0,
                       ADD COLUMN "reserved" BIGINT NOT NULL DEFAULT 0;

UPDATE "accounts" AS a
SET "balance" = s.balance, "reserved" = s.reserved
FROM (
  SELECT "account_id",
         COALESCE(SUM("amount") FILTER (WHERE "kind" = 'grant'), 0) - COALESCE(SUM("amount") FILTER (WHERE "kind" = 'charge'), 0) AS balance,
         COALESCE(SUM("amount") FILTER (WHERE "kind" = 'reserve'), 0) - COALESCE(SUM("amount") FILTER (WHERE "kind" = 'release'), 0) AS reserved
  FROM "credit_ledger" GROUP BY "account_id"
) AS s
WHERE a."id" = s."account_id";

-- No code path can overdraw an account: a reservation only succeeds while balance - reserved
-- covers it, and a settlement charges at most what it releases.
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_credits_covered" CHECK ("reserved" >= 0 AND "reserved" <= "balance");

-- When a job last moved (created, started, a page committed, settled): the lost-job sweep only
-- looks at open jobs that have been still for a while.
ALTER TABLE "jobs" ADD COLUMN "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
UPDATE "jobs" SET "updated_at" = COALESCE("finished_at", "started_at", "created_at");

-- The sweep's question: open jobs that have been still since a given time.
DROP INDEX "jobs_status_idx";
CREATE INDEX "jobs_status_updated_at_idx" ON "jobs"("status", "updated_at");
