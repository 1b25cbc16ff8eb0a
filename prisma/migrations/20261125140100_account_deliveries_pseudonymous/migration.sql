-- The account's memory of delivered leads (excludeDelivered, decision 014) outlives the leads: the retention
-- sweep and subject erasure delete leads but keep it, so nobody pays twice. A LinkedIn lead's dedup key is the
-- person's profile URL, so the memory keeps the key's SHA-256 (hex) instead of the key, as commit_page now
-- writes it: enough to tell "delivered before", not who it was. Existing rows are rewritten once here.
UPDATE "account_deliveries" SET "dedup_key" = encode(sha256(convert_to("dedup_key", 'UTF8')), 'hex');
