-- CreateEnum
CREATE TYPE "Source" AS ENUM ('google_maps', 'linkedin', 'shopify');

-- CreateEnum
CREATE TYPE "JobStatus" AS ENUM ('queued', 'running', 'COMPLETE', 'PARTIAL', 'EMPTY', 'FAILED', 'CANCELLED');

-- CreateEnum
CREATE TYPE "LedgerKind" AS ENUM ('grant', 'reserve', 'release', 'charge');

-- CreateTable
CREATE TABLE "accounts" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "jobs" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "result_set_id" TEXT NOT NULL,
    "source" "Source" NOT NULL,
    "status" "JobStatus" NOT NULL DEFAULT 'queued',
    "request" JSONB NOT NULL,
    "requested_count" INTEGER NOT NULL,
    "delivered_count" INTEGER NOT NULL DEFAULT 0,
    "stop_reason" TEXT,
    "provider" TEXT,
    "credits_reserved" INTEGER NOT NULL,
    "credits_charged" INTEGER,
    "cursor" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "leads" (
    "id" BIGSERIAL NOT NULL,
    "job_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "dedup_key" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "leads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credit_ledger" (
    "id" BIGSERIAL NOT NULL,
    "account_id" TEXT NOT NULL,
    "job_id" TEXT,
    "kind" "LedgerKind" NOT NULL,
    "amount" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credit_ledger_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "account_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "job_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("account_id","key")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_account_id_idx" ON "api_keys"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "jobs_result_set_id_key" ON "jobs"("result_set_id");

-- CreateIndex
CREATE INDEX "jobs_account_id_created_at_idx" ON "jobs"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "jobs_status_idx" ON "jobs"("status");

-- CreateIndex
CREATE UNIQUE INDEX "leads_job_id_dedup_key_key" ON "leads"("job_id", "dedup_key");

-- CreateIndex
CREATE UNIQUE INDEX "leads_job_id_position_key" ON "leads"("job_id", "position");

-- CreateIndex
CREATE UNIQUE INDEX "credit_ledger_job_id_kind_key" ON "credit_ledger"("job_id", "kind");

-- CreateIndex
CREATE INDEX "credit_ledger_account_id_idx" ON "credit_ledger"("account_id");

-- CreateIndex
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "leads" ADD CONSTRAINT "leads_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Rules Prisma's schema language cannot state (the drift test ignores checks and triggers):
-- amounts are positive, counts stay within what was requested, and the ledger is append-only.
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_amount_positive" CHECK ("amount" > 0);
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_delivered_within_requested" CHECK ("delivered_count" >= 0 AND "delivered_count" <= "requested_count");

CREATE FUNCTION "credit_ledger_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'credit_ledger is append-only';
END;
$$;

CREATE TRIGGER "credit_ledger_no_update_or_delete"
  BEFORE UPDATE OR DELETE ON "credit_ledger"
  FOR EACH ROW EXECUTE FUNCTION "credit_ledger_append_only"();
