-- Credit stripes: an account's credit counters spread over a few rows, so that concurrent job creations and
-- settlements of one account stop queueing on the account row's lock (docs/decisions/023-redis-topologies.md,
-- "One account at the speed of many"). The account's balance is accounts.balance plus the stripes' balances,
-- and the same for reserved; the ledger stays the proof of both sums.
-- A stripe is a share of the counters, not a ledger of its own: a settlement may land on any stripe, so only
-- its available part (balance - reserved) is kept from going negative. That is what forbids an overdraft:
-- a reservation needs the stripe's available, a settlement only ever adds to it (it releases at least what
-- it charges).
CREATE TABLE "credit_stripes" (
    "account_id" TEXT NOT NULL,
    "stripe" INTEGER NOT NULL,
    "balance" BIGINT NOT NULL DEFAULT 0,
    "reserved" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "credit_stripes_pkey" PRIMARY KEY ("account_id", "stripe"),
    CONSTRAINT "credit_stripes_covered" CHECK ("reserved" <= "balance")
) WITH (fillfactor = 50);

ALTER TABLE "credit_stripes" ADD CONSTRAINT "credit_stripes_account_id_fkey"
    FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The account row keeps the base counters: grants land there, and the previous release's withdrawal of a
-- job releases there whichever stripe holds the job's reservation, so its reserved part may go below zero.
-- What stays forbidden is the same as on a stripe: less available than nothing.
ALTER TABLE "accounts" DROP CONSTRAINT "accounts_credits_covered";
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_credits_covered" CHECK ("reserved" <= "balance");
