-- Subject erasure (docs/data-protection.md): a person erased by the operator is never collected nor
-- delivered again, in any account. Matched by commit_page as an account's list is (the same normal forms:
-- a bare lower-case domain, a lower-case email, an E.164 phone number).
CREATE TABLE "global_suppressions" (
  "kind" "SuppressionKind" NOT NULL,
  "value" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "global_suppressions_pkey" PRIMARY KEY ("kind", "value")
);
