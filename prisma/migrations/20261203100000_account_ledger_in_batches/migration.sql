-- An account's ledger deleted in bounded batches after its row (issue 39, decision 043). Its deletion's last statement
-- deleted the account row and, by the foreign key's cascade, every ledger row of the account in one transaction: 80,000
-- rows for a customer's year, 0.3 s to 1.5 s holding the account's rows and its stripes. Now delete_account takes the
-- audit figures and the account row in one short statement, records the figures here, and the ledger goes afterwards,
-- a batch a call (prisma/functions/delete_account.sql, delete_account_ledger.sql). Once the account row is gone nothing
-- can add to its ledger (the insert check below), so a batch never takes a row the figures did not count, and a
-- deletion that stops halfway carries on from this row.
--
-- 1. The ledger's foreign key to accounts goes: its cascade is what deleted every row at once. Its check on insert
--    stays, as the trigger credit_ledger_account_exists (prisma/functions/credit_ledger_account_exists.sql): the
--    account must exist, and is locked FOR KEY SHARE as the key's check locked it.
-- 2. account_deletions: one row per deletion under way (the account row gone, some of its ledger left), holding what
--    the audit trail keeps of it. No foreign key: its account is gone.
SELECT set_config('lock_timeout', '5s', true);

ALTER TABLE "credit_ledger" DROP CONSTRAINT IF EXISTS "credit_ledger_account_id_fkey";

CREATE TABLE "account_deletions" (
    "account_id" TEXT NOT NULL,
    "jobs" INTEGER NOT NULL,
    "leads" BIGINT NOT NULL,
    "api_keys" INTEGER NOT NULL,
    "ledger_rows" INTEGER NOT NULL,
    "granted" BIGINT NOT NULL,
    "charged" BIGINT NOT NULL,
    "balance" BIGINT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "account_deletions_pkey" PRIMARY KEY ("account_id")
);
