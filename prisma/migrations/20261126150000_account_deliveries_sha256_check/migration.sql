-- The account's memory of delivered leads keeps SHA-256 digests (migration 20261125140100), but nothing held
-- it to that: a page commit of the text before that migration, still running when it committed, could store a
-- raw key, which no digest ever matches (the lead could be delivered again with excludeDelivered) and which is
-- the person's profile URL for a LinkedIn lead. Such rows are hashed now (or dropped where the digest is already
-- there), and a CHECK refuses any other from here on, as batch_deliveries' does (20261126110000).
LOCK TABLE "account_deliveries" IN ACCESS EXCLUSIVE MODE;
DELETE FROM "account_deliveries" raw USING "account_deliveries" hashed
  WHERE raw."dedup_key" !~ '^[0-9a-f]{64}$'
    AND hashed."account_id" = raw."account_id" AND hashed."source" = raw."source"
    AND hashed."dedup_key" = encode(sha256(convert_to(raw."dedup_key", 'UTF8')), 'hex');
UPDATE "account_deliveries" SET "dedup_key" = encode(sha256(convert_to("dedup_key", 'UTF8')), 'hex')
  WHERE "dedup_key" !~ '^[0-9a-f]{64}$';
ALTER TABLE "account_deliveries" ADD CONSTRAINT "account_deliveries_dedup_key_is_sha256" CHECK ("dedup_key" ~ '^[0-9a-f]{64}$');
