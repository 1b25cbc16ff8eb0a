-- The audit trail (docs/decisions/019-data-protection.md, docs/data-protection.md): who did what to an
-- account's keys, webhooks, suppressions and data, and every export. Append-only (the trigger in
-- prisma/functions/audit_events_append_only.sql); rows older than AUDIT_RETENTION_DAYS are purged.
-- No foreign key to accounts: the trail keeps that an account was deleted after its rows are gone.
CREATE TABLE "audit_events" (
  "id" TEXT NOT NULL,
  -- the account the event concerns; null for an operator action on no one account (a subject erasure)
  "account_id" TEXT,
  -- an API key id (key_...) or `operator` (the admin CLI)
  "actor" TEXT NOT NULL,
  -- e.g. key.revoked, webhook_endpoint.created, suppressions.changed, leads.exported
  "action" TEXT NOT NULL,
  -- the X-Request-Id of the request that did it; null for the admin CLI
  "request_id" TEXT,
  -- what was done, never personal data nor secrets: ids, counts, the export's selection
  "summary" JSONB NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);
-- An account's listing, newest first (keyset on created_at, id), and the purge by age.
CREATE INDEX "audit_events_account_id_created_at_idx" ON "audit_events"("account_id", "created_at");
CREATE INDEX "audit_events_created_at_idx" ON "audit_events"("created_at");
