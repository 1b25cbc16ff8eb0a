-- Costs that do not grow with the whole database (issue 39, docs/decisions/043-past-one-database-server.md).

-- Every foreign key a delete follows has an index (packages/db/test/foreign-key-indexes.test.ts): without these,
-- each deleted job, batch or monitor made PostgreSQL scan every account's webhook deliveries (99 s of a 120 s
-- account deletion at a customer's year of data).
CREATE INDEX "webhook_deliveries_job_id_idx" ON "webhook_deliveries"("job_id");
CREATE INDEX "webhook_deliveries_batch_id_idx" ON "webhook_deliveries"("batch_id");
CREATE INDEX "webhook_deliveries_monitor_id_idx" ON "webhook_deliveries"("monitor_id");

-- An account's suppression counts, kept by the statement triggers of prisma/functions/suppression_counts_kept.sql
-- instead of counted on every GET /suppressions and every upload (11-15x slower at 200,000 entries).
CREATE TABLE "suppression_counts" (
  "account_id" TEXT NOT NULL,
  "kind" "SuppressionKind" NOT NULL,
  "entries" INTEGER NOT NULL DEFAULT 0,
  CONSTRAINT "suppression_counts_pkey" PRIMARY KEY ("account_id", "kind")
);
ALTER TABLE "suppression_counts" ADD CONSTRAINT "suppression_counts_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The counts of the entries there are: no entry is added or removed between this count and the triggers that keep
-- it from then on (they are created later in this same transaction, by the function file).
LOCK TABLE "suppressions" IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO "suppression_counts" ("account_id", "kind", "entries")
SELECT "account_id", "kind", count(*)::int FROM "suppressions" GROUP BY "account_id", "kind";
