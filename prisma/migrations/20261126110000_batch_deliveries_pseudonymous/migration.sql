-- A batch's dedup memory (batch_deliveries, decision 021) kept raw lead keys, and a LinkedIn lead's key is the
-- person's profile URL: personal data outside the leads table, out of reach of subject erasure and the
-- retention sweep. It now keeps the key's SHA-256 (hex), computed exactly as for account_deliveries (migration
-- 20261125140100, commit_page), and a batch's claims are deleted by the settlement that makes it terminal
-- (settle_batch_child): no child can deliver after that, so they are needed only while the batch runs.
-- The table is locked first (in the mode the constraint needs anyway, so the lock is never upgraded), so a page
-- commit that already claimed has committed before the rewrite reads the rows, and none commits between the
-- rewrite and the constraint's check. Claims of batches that are already terminal go; the others are rewritten.
LOCK TABLE "batch_deliveries" IN ACCESS EXCLUSIVE MODE;
DELETE FROM "batch_deliveries" d USING "batches" b WHERE b."id" = d."batch_id" AND b."status" <> 'running';
UPDATE "batch_deliveries" SET "dedup_key" = encode(sha256(convert_to("dedup_key", 'UTF8')), 'hex');
-- Whatever code runs, a raw key cannot be stored: a page commit of the previous text that was already running
-- when this committed fails on it (and its worker commits the page again with the new text) instead of
-- claiming a raw key that a digest could never match.
ALTER TABLE "batch_deliveries" ADD CONSTRAINT "batch_deliveries_dedup_key_is_sha256" CHECK ("dedup_key" ~ '^[0-9a-f]{64}$');
