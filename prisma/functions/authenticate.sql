-- authenticate: the account of a live API key (not revoked, not expired) looked up by the key's sha256,
-- and the key's last use recorded at most once an hour (so a request is nearly always a pure read).
-- Called by: packages/db/src/accounts.ts (authenticateApiKey), on every request the key cache misses.
-- Locks: the api_keys row, only in the hourly write of last_used_at.
-- Guarantees: no row for an unknown, revoked or expired key; the account's id, name, creation time and
--   the key's expiry otherwise.

CREATE OR REPLACE FUNCTION "authenticate"(p_key_hash TEXT)
RETURNS TABLE (o_id TEXT, o_name TEXT, o_created_at TIMESTAMPTZ, o_key_expires_at TIMESTAMPTZ)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_key_id TEXT;
  v_account_id TEXT;
  v_last_used TIMESTAMPTZ;
  v_expires TIMESTAMPTZ;
BEGIN
  SELECT k."id", k."account_id", k."last_used_at", k."expires_at" INTO v_key_id, v_account_id, v_last_used, v_expires FROM "api_keys" k
  WHERE k."key_hash" = p_key_hash AND k."revoked_at" IS NULL AND (k."expires_at" IS NULL OR k."expires_at" > now());
  IF NOT FOUND THEN RETURN; END IF;
  IF v_last_used IS NULL OR v_last_used < now() - interval '1 hour' THEN
    UPDATE "api_keys" SET "last_used_at" = now() WHERE "id" = v_key_id;
  END IF;
  RETURN QUERY SELECT a."id", a."name", a."created_at"::TIMESTAMPTZ, v_expires FROM "accounts" a WHERE a."id" = v_account_id;
END
$$;
