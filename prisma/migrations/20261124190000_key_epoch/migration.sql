-- Immediate revocation (docs/decisions/019-data-protection.md): every revocation of one of an
-- account's keys raises its key epoch in the same statement; the API's key cache keeps the epoch it
-- read with the key, and drops the entry as soon as Redis reports a higher one.
ALTER TABLE "accounts" ADD COLUMN "key_epoch" BIGINT NOT NULL DEFAULT 0;
