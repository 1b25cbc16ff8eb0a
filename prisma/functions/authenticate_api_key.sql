-- authenticate_api_key: the account of a live API key (not revoked, not expired) looked up by the key's sha256,
-- with the key's scopes and mode and the account's key epoch read in the same statement, and the key's last use
-- recorded at most once an hour.
-- Called by: packages/db/src/accounts.ts (authenticateApiKey), on every request the key cache misses.
-- Locks: the api_keys row, only in the hourly write of last_used_at.
-- Guarantees: no row for an unknown, revoked or expired key; otherwise the account's id, name, creation time, the key's id,
--   expiry, scopes and mode, and the account's key epoch as of one snapshot: a revocation (or a change of a key's expiry)
--   that committed after that snapshot raised the epoch past the one returned (so a cache entry holding it is dropped).

CREATE OR REPLACE FUNCTION "authenticate_api_key"(p_key_hash TEXT)
RETURNS TABLE (
  o_id TEXT, o_name TEXT, o_created_at TIMESTAMPTZ, o_key_expires_at TIMESTAMPTZ, o_key_epoch BIGINT, o_key_id TEXT,
  o_key_scopes TEXT[], o_key_mode TEXT
)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_last_used TIMESTAMPTZ;
BEGIN
  -- One SELECT for the key and the epoch: read apart, a revocation committing between them would pair a
  -- live key with the raised epoch, and the cache would keep a revoked key.
  SELECT k."id", k."last_used_at", a."id", a."name", a."created_at"::TIMESTAMPTZ, k."expires_at", a."key_epoch", k."scopes", k."mode"
    INTO o_key_id, v_last_used, o_id, o_name, o_created_at, o_key_expires_at, o_key_epoch, o_key_scopes, o_key_mode
  FROM "api_keys" k JOIN "accounts" a ON a."id" = k."account_id"
  WHERE k."key_hash" = p_key_hash AND k."revoked_at" IS NULL AND (k."expires_at" IS NULL OR k."expires_at" > now());
  IF NOT FOUND THEN RETURN; END IF;
  IF v_last_used IS NULL OR v_last_used < now() - interval '1 hour' THEN
    UPDATE "api_keys" SET "last_used_at" = now() WHERE "id" = o_key_id;
  END IF;
  RETURN NEXT;
END
$$;
