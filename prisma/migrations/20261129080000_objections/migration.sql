-- Objections by the data subjects themselves (issue 38, docs/data-protection.md, decision 042): a person asks,
-- proves control of the email address or domain (or an operator confirms a phone), and the worker applies the
-- confirmed objection: global suppression, erasure, and a notice to every account that received them.
CREATE TABLE "objections" (
  "id" TEXT NOT NULL,
  "kind" "SuppressionKind" NOT NULL,
  -- the subject in its normal form, as global_suppressions holds it
  "value" TEXT NOT NULL,
  "status" TEXT NOT NULL DEFAULT 'pending',
  -- SHA-256 of the secret an email link carries; cleared when used or replaced, so a link works once
  "token_hash" TEXT,
  -- a domain's token to publish (DNS TXT or /.well-known/): public by design, it proves nothing until published
  "proof_token" TEXT,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  -- how control was proven: email_link, dns_txt, well_known, operator
  "confirmed_by" TEXT,
  "confirmed_at" TIMESTAMPTZ(3),
  -- a worker applying it holds it until then; a crashed worker's claim lapses and another takes it
  "applying_until" TIMESTAMPTZ(3),
  "applied_at" TIMESTAMPTZ(3),
  "leads_erased" INTEGER,
  "accounts_noticed" INTEGER,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "objections_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "objections_status_check" CHECK ("status" IN ('pending', 'confirmed', 'applied')),
  CONSTRAINT "objections_kind_check" CHECK ("kind" IN ('email', 'domain', 'phone'))
);
CREATE UNIQUE INDEX "objections_token_hash_key" ON "objections"("token_hash");
CREATE INDEX "objections_status_created_at_idx" ON "objections"("status", "created_at");

-- What each account that received the subject is told (the subject.objected webhook and GET /api/v1/privacy/objections):
-- only identifiers its own leads held.
CREATE TABLE "objection_notices" (
  "id" BIGSERIAL NOT NULL,
  "objection_id" TEXT NOT NULL,
  "account_id" TEXT NOT NULL,
  "kind" "SuppressionKind" NOT NULL,
  "value" TEXT NOT NULL,
  -- { emails, phones, domains }: the values of the subject found in this account's leads
  "identifiers" JSONB NOT NULL,
  -- the account's jobs that delivered the subject, a JSON array of ids
  "job_ids" JSONB NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "objection_notices_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "objection_notices_objection_id_fkey" FOREIGN KEY ("objection_id") REFERENCES "objections"("id") ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT "objection_notices_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "objection_notices_objection_id_account_id_key" ON "objection_notices"("objection_id", "account_id");
CREATE INDEX "objection_notices_account_id_id_idx" ON "objection_notices"("account_id", "id");
